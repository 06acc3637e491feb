// iomark ui: a run's page, live. The page works without this (it refreshes itself); with it,
// the run's progress lines arrive as server-sent events: the grid fills in test by test (the
// test that runs shows its rate as it goes), the current rate is drawn each second, the time
// left counts down each second whatever the length of the loops (a quick run's end before the
// once-a-second rate), and the run's end leads to its result.
"use strict";
(function () {
  const now = document.getElementById("now");
  if (!now || now.dataset.going !== "true") return;
  const run = now.dataset.run;
  const body = document.querySelector("#grid tbody");
  const steps = document.getElementById("steps");
  steps.textContent = "";
  const rate = document.getElementById("rate");
  const line = document.querySelector("#live polyline");
  let rates = [];
  let leftAt = null;
  let said = "";
  let current = null;
  body.textContent = "";
  const span = (parent, cls, text) => {
    const s = document.createElement("span");
    if (cls) s.className = cls;
    s.textContent = text;
    parent.appendChild(s);
    return s;
  };
  // The tile of test `test` (SEQ1M_Q8T1_read), its row made when first needed.
  const tile = (test) => {
    const cut = test.lastIndexOf("_");
    const key = test.slice(0, cut);
    let tr = body.querySelector(`tr[data-row="${CSS.escape(key)}"]`);
    if (!tr) {
      tr = body.insertRow();
      tr.dataset.row = key;
      const th = document.createElement("th");
      th.scope = "row";
      const at = key.indexOf("_");
      span(th, "", at < 0 ? key : key.slice(0, at));
      th.appendChild(document.createTextNode(" "));
      span(th, "", at < 0 ? "" : key.slice(at + 1).replace(/_/g, " "));
      tr.appendChild(th);
      for (const op of ["read", "write"]) {
        const td = tr.insertCell();
        td.className = "tile";
        td.dataset.test = `${key}_${op}`;
        span(td, "fig", "–");
        td.appendChild(document.createTextNode(" "));
        span(td, "unit", "MB/s");
      }
    }
    return tr.querySelector(`td[data-test="${CSS.escape(test)}"]`);
  };
  const show = () => {
    let text = said;
    if (leftAt) {
      const left = Math.max(0, Math.round((leftAt - Date.now()) / 1000));
      text += `${text ? " · " : ""}about ${left} s left`;
    }
    rate.textContent = text;
  };
  setInterval(show, 1000);
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
      // A test's phase is `[3/8] RND4K_Q32T1_read`: its tile shows it going.
      const test = e.phase.split("] ").pop();
      if (current) current.classList.remove("now");
      current = /^[A-Z0-9]+_Q\d+T\d+_(read|write)$/.test(test) ? tile(test) : null;
      if (current) current.classList.add("now");
    } else if (e.event === "tick") {
      rates.push(e.mb_per_s);
      draw();
      said = `${e.mb_per_s.toFixed(1)} MB/s now`;
      if (current) current.querySelector(".fig").textContent = e.mb_per_s.toFixed(2);
      show();
    } else if (e.event === "done") {
      if (typeof e.run_left_s === "number") leftAt = Date.now() + e.run_left_s * 1000;
      if (!e.test) {
        const li = document.createElement("li");
        const rate = e.summary || (typeof e.mb_per_s === "number" ? `${e.mb_per_s.toFixed(1)} MB/s` : "done");
        li.textContent = `${e.phase}: ${rate}`;
        steps.appendChild(li);
      } else if (typeof e.mb_per_s === "number") {
        const done = tile(e.test);
        done.classList.remove("now");
        done.querySelector(".fig").textContent = e.mb_per_s.toFixed(2);
        said = `${e.test.replace(/_/g, " ")}: ${e.mb_per_s.toFixed(2)} MB/s`;
        if (done === current) current = null;
      }
      show();
    } else if (e.event === "end") {
      events.close();
      if (e.status === "done") location.href = `/results/${encodeURIComponent(e.result)}`;
      else location.reload();
    }
  };
})();
