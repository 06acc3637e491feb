// iomark ui: a run's page, live. The page works without this (it refreshes itself); with it,
// the run's progress lines arrive as server-sent events: the table fills in test by test, the
// current test's rate is drawn each second, the time left counts down, and the run's end
// leads to its result.
"use strict";
(function () {
  const now = document.getElementById("now");
  if (!now || now.dataset.going !== "true") return;
  const run = now.dataset.run;
  const body = document.querySelector("#table tbody");
  const steps = document.getElementById("steps");
  steps.textContent = "";
  const rate = document.getElementById("rate");
  const line = document.querySelector("#live polyline");
  let rates = [];
  let leftAt = null;
  body.textContent = "";
  const row = (name) => {
    for (const tr of body.rows) if (tr.cells[0].textContent === name) return tr;
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.textContent = name;
    tr.appendChild(th);
    for (let i = 0; i < 2; i++) {
      const td = tr.insertCell();
      td.className = "n";
      td.textContent = "–";
    }
    return tr;
  };
  const draw = () => {
    const top = Math.max(1, ...rates);
    const step = rates.length > 1 ? 300 / (rates.length - 1) : 0;
    line.setAttribute("points", rates.map((r, i) => `${(i * step).toFixed(1)},${(58 - (r / top) * 56).toFixed(1)}`).join(" "));
  };
  const events = new EventSource(`/runs/${run}/events`);
  events.onmessage = (message) => {
    const e = JSON.parse(message.data);
    if (e.event === "start") {
      now.textContent = e.phase;
      rates = [];
      draw();
    } else if (e.event === "tick") {
      rates.push(e.mb_per_s);
      draw();
      let text = `${e.mb_per_s.toFixed(1)} MB/s now`;
      if (leftAt) {
        const left = Math.max(0, Math.round((leftAt - Date.now()) / 1000));
        text += ` · about ${left} s left`;
      }
      rate.textContent = text;
    } else if (e.event === "done") {
      if (typeof e.run_left_s === "number") leftAt = Date.now() + e.run_left_s * 1000;
      if (!e.test) {
        const li = document.createElement("li");
        const rate = e.summary || (typeof e.mb_per_s === "number" ? `${e.mb_per_s.toFixed(1)} MB/s` : "done");
        li.textContent = `${e.phase}: ${rate}`;
        steps.appendChild(li);
      } else if (typeof e.mb_per_s === "number") {
        const cut = e.test.lastIndexOf("_");
        const name = e.test.slice(0, cut).replace(/_/g, " ");
        const op = e.test.slice(cut + 1);
        row(name).cells[op === "write" ? 2 : 1].textContent = e.mb_per_s.toFixed(2);
      }
    } else if (e.event === "end") {
      events.close();
      if (e.status === "done") location.href = `/results/${encodeURIComponent(e.result)}`;
      else location.reload();
    }
  };
})();
