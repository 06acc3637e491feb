# iomark on an emulated Pi, as its owner would run it (tests/virtual-pi runs this in the guest,
# /mnt the card's ext4, /full a small one, /dev/mmcblk0 the card). One line per check: "ok -",
# "not ok -" with what it printed, and at the end "virtual-pi: every check passed" or not.
# Behaviour and identity only: emulated figures say nothing of a Pi's speed.
machine=$(cat /machine)
case $machine in
pi3) board="Raspberry Pi 3 Model B" ;;
pi2) board="Raspberry Pi 2 Model B" ;;
pi0) board="Raspberry Pi Zero" ;;
esac

# ok, bad, check, has, left, and the count of failures they keep.
# shellcheck source=tests/virtual-pi.d/lib.sh
. /lib.sh

# What busybox's `time -v -o /tmp/mem` said of the peak resident memory.
peak_kib() { sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/mem; }

read -r builds </builds
for build in $builds; do
    started=$(date +%s)
    io=/opt/$build/iomark
    echo "# $build on $machine ($(uname -m), kernel $(uname -r))"
    check "$build: --version" "$io" --version

    # What a Pi owner asks first: which board, which card, which bus.
    "$io" info --json /mnt >/tmp/info.json 2>/tmp/info.err || bad "$build: info" "$(cat /tmp/info.err)"
    has "$build: info names the board" /tmp/info.json "\"board\": \"$board"
    has "$build: info names the card's kind from its registers" /tmp/info.json '"kind": "SD'
    has "$build: info reads the card's manufacturer id" /tmp/info.json '"manfid": "0xaa"'
    has "$build: info names the transport" /tmp/info.json '"transport": "mmc"'
    # QEMU's card: its CID's name, OEM and date, its CSD's capacity class, the image's size.
    has "$build: info reads the card's name" /tmp/info.json '"product": "QEMU!"'
    has "$build: info reads the card's OEM" /tmp/info.json '"oemid": "XY"'
    has "$build: info reads the card's date" /tmp/info.json '"date": "2006-02"'
    has "$build: info decodes the CSD's capacity class" /tmp/info.json '"capacity_class": "SDSC"'
    has "$build: info gives the card's size" /tmp/info.json '"size_bytes": 268435456'
    # The bus from debugfs, as root on a Pi: not UHS (a Pi 3's is not either), and said so.
    has "$build: info reads the bus timing" /tmp/info.json '"bus_timing": "'
    has "$build: info warns of a bus that is not UHS" /tmp/info.json '"kind": "sd_bus_not_uhs"'
    "$io" info /mnt >/tmp/info.txt 2>&1 || bad "$build: info in words" "$(cat /tmp/info.txt)"
    has "$build: info in words names the board" /tmp/info.txt "$board"

    # The quick profile on the card's ext4, with io_uring.
    if "$io" run /mnt -p quick --size 8MiB --no-save --json /tmp/quick.json >/tmp/run.out 2>&1; then
        ok "$build: run -p quick"
        has "$build: quick ran on io_uring" /tmp/quick.json '"engine": "io_uring"'
        has "$build: quick's document holds its figures" /tmp/quick.json '"SEQ1M_Q8T1_read"'
        has "$build: quick's document names the card" /tmp/quick.json '"sd": {'
    else
        bad "$build: run -p quick" "$(cat /tmp/run.out)"
    fi
    left "$build: quick left no file" /mnt

    # The rest, for the machine's own build (the first); another build's engine, identity and
    # cleaning up are checked above.
    if [ "$build" != "${builds%% *}" ]; then
        echo "# $build: $(($(date +%s) - started)) s"
        continue
    fi

    # The sdcard profile, shortened: its class verdicts are words, not figures, here.
    if "$io" run /mnt -p sdcard --size 16MiB --duration 1s --warmup 0s --no-save \
        --json /tmp/sd.json >/tmp/run.out 2>&1; then
        ok "$build: run -p sdcard"
        has "$build: sdcard ran on io_uring" /tmp/sd.json '"engine": "io_uring'
    else
        bad "$build: run -p sdcard" "$(cat /tmp/run.out)"
    fi
    left "$build: sdcard left no file" /mnt

    # Polling at queue depth 1, and threads.
    check "$build: --poll" "$io" run /mnt -p quick --size 8MiB --test RND4K_Q1T1 --poll --no-save --quiet
    if "$io" run /mnt -p quick --size 8MiB --test RND4K_Q32T4_read --no-save \
        --json /tmp/threads.json >/tmp/run.out 2>&1; then
        has "$build: RND4K_Q32T4 runs four threads" /tmp/threads.json '"threads": 4'
    else
        bad "$build: RND4K_Q32T4" "$(cat /tmp/run.out)"
    fi
    left "$build: --poll and threads left no file" /mnt

    # Ctrl-C: stopped within seconds, its file removed, 130.
    "$io" run /mnt -p quick --size 8MiB --loops 50 --no-save --quiet >/tmp/int.out 2>&1 &
    pid=$!
    sleep 4
    kill -INT "$pid"
    wait "$pid"
    status=$?
    if [ "$status" -eq 130 ]; then ok "$build: Ctrl-C ends it with 130"; else bad "$build: Ctrl-C ended it with $status" "$(cat /tmp/int.out)"; fi
    left "$build: Ctrl-C left no file" /mnt

    # A card too full for the file: refused before measuring, in one line.
    if "$io" run /full -p quick --size 64MiB --no-save >/tmp/full.out 2>&1; then
        bad "$build: a full card is refused" "$(cat /tmp/full.out)"
    else
        has "$build: a full card is refused for its free space" /tmp/full.out 'free'
    fi
    left "$build: the full card holds nothing of it" /full
    echo "# $build: $(($(date +%s) - started)) s"
done

first=${builds%% *}
io=/opt/$first/iomark

# A Zero's 512 MB hold iomark beside a desktop or a service: each profile's peak resident
# memory, on the card, shortened to fit it and the emulation's pace, in lines bench/pi-memory
# reads and holds to its bounds. `busybox time` (sh has a time of its own) takes the kernel's
# ru_maxrss for pages and multiplies it by 4 (KiB a page); it is KiB already on Linux: divided
# back (its figures are four times the peak of /proc/PID/smaps_rollup sampled in those runs).
if [ "$machine" = pi0 ]; then
    for args in "quick --size 8MiB" \
        "standard --size 64MiB --loops 1 --duration 1s --warmup 0s" \
        "nvme --size 64MiB --loops 1 --duration 1s --warmup 0s" \
        "latency --size 8MiB --count 200" \
        "sweep --size 32MiB --duration 500ms --warmup 0s" \
        "sustained --size 32MiB --duration 3s" \
        "sdcard --size 16MiB --duration 1s --warmup 0s" \
        "pi --size 32MiB" \
        "surface --size 32MiB --samples 8 --count 100"; do
        profile=${args%% *}
        # shellcheck disable=SC2086 # the profile's words, one argument each
        if busybox time -v -o /tmp/mem "$io" run /mnt -p $args --no-save --quiet >/tmp/mem.out 2>&1; then
            echo "# memory: $profile $(($(peak_kib) / 4)) KiB ($args)"
            ok "$first: $profile's peak memory measured"
        else
            bad "$first: -p $args" "$(cat /tmp/mem.out)"
        fi
        left "$first: $profile left no file" /mnt
    done
fi

# A health check of the card, twice: healthy, at its second check, with what the card counted
# written (mmcblk0p1's stat) in the result.
if "$io" health /mnt --no-save --json /tmp/health.json >/tmp/health.out 2>&1 &&
    "$io" health /mnt --no-save --json /tmp/health.json >/tmp/health.out 2>&1; then
    ok "$first: health, twice"
    has "$first: the card is healthy" /tmp/health.json '"verdict": "healthy"'
    has "$first: at its second check" /tmp/health.json '"checks": 2'
    has "$first: its writes counted by the card" /tmp/health.json '"device_written_bytes": [0-9]'
else
    bad "$first: health" "$(cat /tmp/health.out)"
fi

# The raw card: its capacity proved and its surface drawn (destructive: the card is an image).
started=$(date +%s)
umount /mnt /full
if busybox time -v -o /tmp/mem "$io" verify --device /dev/mmcblk0 --destructive --yes --no-save >/tmp/verify.out 2>&1; then
    ok "$first: verify --device"
    echo "# memory: verify $(($(peak_kib) / 4)) KiB (--device, 256 MiB)"
    has "$first: verify finds the card's 256 MiB real" /tmp/verify.out '256'
else
    bad "$first: verify --device" "$(cat /tmp/verify.out)"
fi
echo "# verify: $(($(date +%s) - started)) s"
# 8 rates and 100 access times: the card is read from its first byte to its last all the same,
# in a fraction of the time the defaults (100 and 1,000) take under emulation.
if "$io" run --device /dev/mmcblk0 --samples 8 --count 100 --no-save --json /tmp/surface.json >/tmp/surface.out 2>&1; then
    ok "$first: the surface scan reads the card"
    has "$first: the surface scan reads the whole card" /tmp/surface.json '"size_bytes": 268435456'
    has "$first: the surface scan says why it uses pread" /tmp/surface.out 'pread, each read timed alone'
else
    bad "$first: the surface scan" "$(cat /tmp/surface.out)"
fi

echo "# the raw card: $(($(date +%s) - started)) s"
if [ "$failed" -eq 0 ]; then
    echo "virtual-pi: every check passed"
else
    echo "virtual-pi: a check failed"
fi
