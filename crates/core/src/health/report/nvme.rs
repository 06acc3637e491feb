//! An NVMe drive's SMART / health information log page (log identifier 02h, 512 bytes, NVM
//! Express Base Specification, "SMART / Health Information"), asked for with an admin Get Log
//! Page command through the namespace's block device (`NVME_IOCTL_ADMIN_CMD`, root's).

use std::os::fd::AsRawFd;
use std::path::Path;

use super::{hex, le, NEEDS_ROOT};
use iomark_result::result::health::DeviceReport;

/// `struct nvme_passthru_cmd` of `linux/nvme_ioctl.h`.
#[repr(C)]
#[derive(Default)]
struct Passthru {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

/// `_IOWR('N', 0x41, struct nvme_admin_cmd)`: 72 bytes.
const NVME_IOCTL_ADMIN_CMD: u32 = 0xC048_4E41;
const GET_LOG_PAGE: u8 = 0x02;
const SMART_LOG: u32 = 0x02;
const LOG_BYTES: usize = 512;

/// The drive's health log, asked of the device node `node` (`/dev/nvme0n1`).
pub fn read(node: &Path) -> Result<DeviceReport, String> {
    let file = std::fs::File::open(node).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => NEEDS_ROOT.to_string(),
        _ => format!("{}: {e}", node.display()),
    })?;
    let mut log = [0u8; LOG_BYTES];
    let mut command = Passthru {
        opcode: GET_LOG_PAGE,
        // The controller's log, not one namespace's.
        nsid: 0xFFFF_FFFF,
        addr: log.as_mut_ptr() as u64,
        data_len: LOG_BYTES as u32,
        // Dwords to read, less one, above the log's identifier.
        cdw10: ((LOG_BYTES as u32 / 4 - 1) << 16) | SMART_LOG,
        timeout_ms: 5_000,
        ..Passthru::default()
    };
    // SAFETY: the command is the kernel's struct, its buffer `log` lives through the call and
    // is as long as `data_len` says.
    let answer = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ADMIN_CMD as _, &mut command) };
    match answer {
        0 => Ok(decode(&log)),
        -1 => {
            let e = std::io::Error::last_os_error();
            Err(match e.raw_os_error() {
                Some(libc::EACCES | libc::EPERM) => NEEDS_ROOT.into(),
                _ => format!("the drive's health log could not be read: {e}"),
            })
        }
        status => Err(format!(
            "the drive answered the health log's request with status {status:#x}"
        )),
    }
}

/// The report the 512 bytes of the log page make.
pub fn decode(log: &[u8; LOG_BYTES]) -> DeviceReport {
    let critical = u64::from(log[0]);
    let kelvin = le(&log[1..3]);
    let (spare, threshold, used) = (log[3], log[4], log[5]);
    let media_errors = le(&log[160..176]);
    // Spare below its threshold (bit 0), reliability degraded (bit 2), read-only (bit 3), the
    // volatile memory's backup failed (bit 4): failing. Temperature (bit 1): a warning.
    let says = if critical & 0b1_1101 != 0 {
        "failing"
    } else if critical != 0 || media_errors > 0 || used >= 100 {
        "warning"
    } else {
        "ok"
    };
    DeviceReport {
        source: "nvme".into(),
        says: says.into(),
        life_used_percent: Some(u64::from(used)),
        spare_percent: Some(u64::from(spare)),
        spare_threshold_percent: Some(u64::from(threshold)),
        critical_warning: Some(critical),
        media_errors: Some(media_errors),
        power_on_hours: Some(le(&log[128..144])),
        unsafe_shutdowns: Some(le(&log[144..160])),
        // Data units are thousands of 512-byte units.
        written_bytes: Some(le(&log[48..64]).saturating_mul(512_000)),
        temperature_c: (kelvin > 0).then_some(kelvin as f64 - 273.15),
        raw_hex: Some(hex(log)),
        ..DeviceReport::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_kernel_s_size() {
        assert_eq!(std::mem::size_of::<Passthru>(), 72);
    }

    #[test]
    fn a_log_page_reads_as_the_specification_lays_it_out() {
        let mut log = [0u8; LOG_BYTES];
        log[1..3].copy_from_slice(&313u16.to_le_bytes());
        (log[3], log[4], log[5]) = (97, 10, 4);
        log[48..56].copy_from_slice(&1_000u64.to_le_bytes());
        log[128..136].copy_from_slice(&1_234u64.to_le_bytes());
        let r = decode(&log);
        assert_eq!(r.says, "ok");
        assert_eq!(r.life_used_percent, Some(4));
        assert_eq!(
            (r.spare_percent, r.spare_threshold_percent),
            (Some(97), Some(10))
        );
        assert_eq!(r.written_bytes, Some(512_000_000));
        assert_eq!(r.power_on_hours, Some(1_234));
        assert!((r.temperature_c.unwrap() - 39.85).abs() < 1e-9);
        log[160] = 3;
        assert_eq!(decode(&log).says, "warning");
        log[0] = 0b1000;
        assert_eq!(decode(&log).says, "failing", "read-only");
        log[0] = 0b10;
        assert_eq!(decode(&log).says, "warning", "temperature alone");
        // Counters past 64 bits saturate rather than wrap.
        log[48..64].copy_from_slice(&[0xff; 16]);
        assert_eq!(decode(&log).written_bytes, Some(u64::MAX));
    }

    /// QEMU's NVMe controller's answer, captured through the kernel's nvme driver
    /// (tests/fixtures/smart/).
    #[test]
    fn a_captured_log_page_reads_as_the_controller_meant_it() {
        let hex = include_str!("../../../../../tests/fixtures/smart/qemu-nvme.hex").trim();
        let bytes = super::super::unhex(hex);
        let log: [u8; LOG_BYTES] = bytes.try_into().unwrap();
        let r = decode(&log);
        assert_eq!(r.says, "ok");
        assert_eq!(r.critical_warning, Some(0));
        assert!((r.temperature_c.unwrap() - 49.85).abs() < 1e-9, "323 K");
        assert_eq!(r.life_used_percent, Some(0));
        assert_eq!(r.written_bytes, Some(3 * 512_000));
        assert_eq!(r.media_errors, Some(0));
        assert_eq!(r.raw_hex.as_deref(), Some(hex));
    }
}
