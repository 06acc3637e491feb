# iomark's health check on an arm64 machine's NVMe and SATA disks (tests/virtual-pi's third
# machine, QEMU's virt board; /nvme and /sata their ext4, as root): each drive's own report
# of its health read through the real kernel drivers (nvme, ahci with libata's SCSI/ATA
# translation), by the 64-bit and the 32-bit build. The log page and the SMART data are
# printed ("# raw …") to be kept as captured answers (tests/fixtures/smart/).
# ok, bad, has, and the count of failures they keep.
# shellcheck source=tests/virtual-pi.d/lib.sh
. /lib.sh

read -r builds </builds
for build in $builds; do
    io=/opt/$build/iomark
    echo "# $build on disks ($(uname -m), kernel $(uname -r))"
    for disk in nvme sata; do
        if "$io" health "/$disk" --no-save --json /tmp/h.json >/tmp/h.out 2>&1; then
            ok "$build: health of the $disk disk"
        else
            bad "$build: health of the $disk disk" "$(cat /tmp/h.out)"
            continue
        fi
        has "$build: the $disk disk is healthy" /tmp/h.json '"verdict": "healthy"'
        case $disk in
        nvme)
            has "$build: the NVMe drive's health log is read" /tmp/h.json '"source": "nvme"'
            has "$build: it says its spare" /tmp/h.json '"spare_percent": [0-9]'
            has "$build: it says its temperature" /tmp/h.json '"temperature_c": [0-9]'
            ;;
        sata)
            has "$build: the SATA drive's SMART is read" /tmp/h.json '"source": "ata"'
            has "$build: it says its power-on hours" /tmp/h.json '"power_on_hours": [0-9]'
            has "$build: it says whether a threshold is past" /tmp/h.json '"threshold_exceeded": false'
            ;;
        esac
        has "$build: the $disk drive says it is well" /tmp/h.json '"says": "ok"'
        has "$build: the $disk report is a signal" /tmp/h.out 'device report'
        if [ "$build" = "${builds%% *}" ]; then
            echo "# raw $disk $(sed -n 's/.*"raw_hex": "\([0-9a-f]*\)".*/\1/p' /tmp/h.json)"
        fi
    done
    "$io" info --json /nvme >/tmp/i.json 2>&1
    has "$build: info names the NVMe transport" /tmp/i.json '"transport": "nvme"'
    "$io" info --json /sata >/tmp/i.json 2>&1
    has "$build: info names the SATA transport" /tmp/i.json '"transport": "sata"'
done
# A card's health shared with a results site (the host's, at 10.0.2.2): each build adds its
# check to the same card (the key kept in the folder), the device's page counts it, and
# --unshare withdraws it.
site=http://10.0.2.2:$(cat /site)
n=0
for build in $builds; do
    io=/opt/$build/iomark
    n=$((n + 1))
    if "$io" health /nvme --share "$site" >/tmp/s.out 2>&1; then
        ok "$build: the NVMe drive's health shared"
    else
        bad "$build: the NVMe drive's health shared" "$(cat /tmp/s.out)"
    fi
    has "$build: one new check sent" /tmp/s.out "Shared with $site: 1 new check"
done
has "the card's key is kept in its folder" /nvme/iomark-health/share.json '"key": "[0-9a-f]\{32,\}"'
key=$(sed -n 's|.*the card.s model: http://[^/]*/devices/\([^ ]*\).*|\1|p' /tmp/s.out)
wget -qO /tmp/d.json "$site/api/v1/devices/$key" 2>/tmp/w.out || bad "the model's page answers ($key)" "$(cat /tmp/w.out)"
has "its page counts one card" /tmp/d.json '"cards":{"cards":1,"submitters":1'
has "its newest check finds it healthy" /tmp/d.json '"now":\[\["healthy",1\]\]'
echo "# card-health $(cat /tmp/d.json)"
if "$io" health /nvme --unshare "$site" >/tmp/u.out 2>&1; then
    ok "the card withdrawn"
else
    bad "the card withdrawn" "$(cat /tmp/u.out)"
fi
has "with every check of it ($n)" /tmp/u.out "its $n check(s) of this card are gone"
if wget -qO /tmp/d.json "$site/api/v1/devices/$key" 2>/dev/null; then
    bad "the model's page is gone with its only card" "$(cat /tmp/d.json)"
else
    ok "the model's page is gone with its only card"
fi
if [ "$failed" -eq 0 ]; then
    echo "virtual-pi: every check passed"
else
    echo "virtual-pi: a check failed"
fi
