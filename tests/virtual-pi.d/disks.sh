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
if [ "$failed" -eq 0 ]; then
    echo "virtual-pi: every check passed"
else
    echo "virtual-pi: a check failed"
fi
