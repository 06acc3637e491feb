//! An ATA drive's SMART data, through the SCSI/ATA translation (SAT): ATA PASS-THROUGH (16)
//! sent with SG_IO to the disk's node (root's), as libata translates it for a SATA disk and a
//! SAT bridge for a USB one. Three commands: SMART READ DATA (its attribute table), SMART READ
//! THRESHOLDS (each attribute's failure threshold) and SMART RETURN STATUS (the drive's own
//! verdict, in the registers the sense data returns).

use std::os::fd::AsRawFd;
use std::path::Path;

use super::{hex, le, NEEDS_ROOT};
use iomark_result::result::health::DeviceReport;

/// `struct sg_io_hdr` of `scsi/sg.h`.
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: libc::c_uchar,
    mx_sb_len: libc::c_uchar,
    iovec_count: libc::c_ushort,
    dxfer_len: libc::c_uint,
    dxferp: *mut libc::c_void,
    cmdp: *mut libc::c_uchar,
    sbp: *mut libc::c_uchar,
    timeout: libc::c_uint,
    flags: libc::c_uint,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: libc::c_uchar,
    masked_status: libc::c_uchar,
    msg_status: libc::c_uchar,
    sb_len_wr: libc::c_uchar,
    host_status: libc::c_ushort,
    driver_status: libc::c_ushort,
    resid: libc::c_int,
    duration: libc::c_uint,
    info: libc::c_uint,
}

const SG_IO: u32 = 0x2285;
const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_FROM_DEV: libc::c_int = -3;
const READ_DATA: u8 = 0xD0;
const READ_THRESHOLDS: u8 = 0xD1;
const RETURN_STATUS: u8 = 0xDA;
const SECTOR: usize = 512;

/// The drive's SMART report; `None` where the drive or its bridge does not take the commands
/// (nothing to report), an error where it may not be asked (not root).
pub fn read(node: &Path) -> Result<Option<DeviceReport>, String> {
    let file = std::fs::File::open(node).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => NEEDS_ROOT.to_string(),
        _ => format!("{}: {e}", node.display()),
    })?;
    let fd = file.as_raw_fd();
    let mut data = [0u8; SECTOR];
    match smart(fd, READ_DATA, Some(&mut data)) {
        Ok(_) => {}
        Err(Refused::NotRoot) => return Err(NEEDS_ROOT.into()),
        Err(Refused::NotTaken) => return Ok(None),
    }
    let mut thresholds = [0u8; SECTOR];
    let thresholds = smart(fd, READ_THRESHOLDS, Some(&mut thresholds))
        .ok()
        .map(|_| thresholds);
    let status = smart(fd, RETURN_STATUS, None).ok().and_then(|registers| {
        // LBA mid and high: 4Fh C2h when well, F4h 2Ch when a threshold is exceeded.
        match registers {
            Some((0x4F, 0xC2)) => Some(false),
            Some((0xF4, 0x2C)) => Some(true),
            _ => None,
        }
    });
    Ok(Some(decode(&data, thresholds.as_ref(), status)))
}

enum Refused {
    NotRoot,
    NotTaken,
}

/// One SMART command (PIO data in where `data` is given, else no data, asking for the
/// registers back): the LBA mid and high registers where the sense data holds them.
fn smart(
    fd: libc::c_int,
    feature: u8,
    data: Option<&mut [u8; SECTOR]>,
) -> Result<Option<(u8, u8)>, Refused> {
    let reading = data.is_some();
    let (protocol, flags) = match reading {
        // PIO data-in; T_DIR from the device, BYT_BLOK, T_LENGTH in the sector count.
        true => (4 << 1, 0x0e),
        // Non-data; CK_COND: return the registers in the sense data.
        false => (3 << 1, 0x20),
    };
    let mut cdb: [u8; 16] = [
        0x85, protocol, flags, 0, feature, 0, 1, 0, 0, 0, 0x4F, 0, 0xC2, 0, 0xB0, 0,
    ];
    let mut sense = [0u8; 32];
    let (pointer, length) = match data {
        Some(buffer) => (buffer.as_mut_ptr().cast(), SECTOR as libc::c_uint),
        None => (std::ptr::null_mut(), 0),
    };
    let mut header = SgIoHdr {
        interface_id: b'S' as libc::c_int,
        dxfer_direction: if reading {
            SG_DXFER_FROM_DEV
        } else {
            SG_DXFER_NONE
        },
        cmd_len: cdb.len() as u8,
        mx_sb_len: sense.len() as u8,
        iovec_count: 0,
        dxfer_len: length,
        dxferp: pointer,
        cmdp: cdb.as_mut_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: 10_000,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: the header is the kernel's struct; the command, sense and data buffers it points
    // to live through the call and are as long as it says.
    let answer = unsafe { libc::ioctl(fd, SG_IO as _, &mut header) };
    if answer != 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EACCES | libc::EPERM) => Refused::NotRoot,
            _ => Refused::NotTaken,
        });
    }
    let written = usize::from(header.sb_len_wr).min(sense.len());
    registers(
        &sense[..written],
        reading,
        header.host_status,
        header.status,
    )
}

/// What the sense data says of one command: the registers of an ATA Status Return descriptor
/// (descriptor sense, code 09h), or a refusal (ILLEGAL REQUEST, a transport error).
fn registers(
    sense: &[u8],
    reading: bool,
    host_status: u16,
    status: u8,
) -> Result<Option<(u8, u8)>, Refused> {
    if host_status != 0 {
        return Err(Refused::NotTaken);
    }
    let descriptor_format = sense.first().is_some_and(|c| c & 0x7f == 0x72);
    let key = match descriptor_format {
        true => sense.get(1).map(|k| k & 0x0f),
        false => sense.get(2).map(|k| k & 0x0f),
    };
    // ILLEGAL REQUEST or ABORTED COMMAND: the drive or the bridge does not take it.
    if matches!(key, Some(0x05 | 0x0b)) {
        return Err(Refused::NotTaken);
    }
    if reading {
        return match status {
            0 => Ok(None),
            _ => Err(Refused::NotTaken),
        };
    }
    let mut rest = sense.get(8..).unwrap_or_default();
    while rest.len() >= 2 {
        let length = usize::from(rest[1]) + 2;
        if rest[0] == 0x09 && rest.len() >= 12 {
            return Ok(Some((rest[9], rest[11])));
        }
        rest = rest.get(length..).unwrap_or_default();
    }
    Ok(None)
}

/// The report SMART READ DATA's 512 bytes make, with the thresholds' and the drive's status
/// where they were had.
pub fn decode(
    data: &[u8; SECTOR],
    thresholds: Option<&[u8; SECTOR]>,
    status_exceeded: Option<bool>,
) -> DeviceReport {
    let mut report = DeviceReport {
        source: "ata".into(),
        raw_hex: Some(hex(data)),
        ..DeviceReport::default()
    };
    let mut past_threshold = false;
    // 30 attributes of 12 bytes from byte 2: id, flags (2), value, worst, raw (6), reserved.
    for entry in data[2..362].chunks_exact(12) {
        let id = entry[0];
        if id == 0 {
            continue;
        }
        let (value, raw) = (entry[3], &entry[5..11]);
        let threshold = thresholds.and_then(|t| {
            t[2..362]
                .chunks_exact(12)
                .find(|e| e[0] == id)
                .map(|e| e[1])
        });
        // A pre-failure attribute (flag bit 0) at or below a threshold above zero.
        if entry[1] & 1 == 1 && threshold.is_some_and(|t| t > 0 && value <= t) {
            past_threshold = true;
        }
        let low32 = le(&raw[..4]);
        match id {
            5 => report.reallocated_sectors = Some(low32),
            9 => report.power_on_hours = Some(low32),
            194 => report.temperature_c = Some(f64::from(raw[0])),
            197 => report.pending_sectors = Some(low32),
            198 => report.uncorrectable_sectors = Some(low32),
            _ => {}
        }
    }
    let exceeded = status_exceeded.unwrap_or(false) || past_threshold;
    report.threshold_exceeded =
        (status_exceeded.is_some() || thresholds.is_some()).then_some(exceeded);
    let bad_sectors = [
        report.reallocated_sectors,
        report.pending_sectors,
        report.uncorrectable_sectors,
    ]
    .iter()
    .any(|n| n.is_some_and(|n| n > 0));
    report.says = match (exceeded, bad_sectors) {
        (true, _) => "failing",
        (false, true) => "warning",
        (false, false) => "ok",
    }
    .into();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(table: &mut [u8; SECTOR], slot: usize, id: u8, flags: u8, value: u8, raw: u32) {
        let at = 2 + slot * 12;
        table[at] = id;
        table[at + 1] = flags;
        table[at + 3] = value;
        table[at + 4] = value;
        table[at + 5..at + 9].copy_from_slice(&raw.to_le_bytes());
    }

    #[test]
    fn the_header_is_the_kernel_s_size() {
        let expected = if cfg!(target_pointer_width = "64") {
            88
        } else {
            64
        };
        assert_eq!(std::mem::size_of::<SgIoHdr>(), expected);
    }

    #[test]
    fn attributes_and_thresholds_read_as_ata_lays_them_out() {
        let mut data = [0u8; SECTOR];
        attribute(&mut data, 0, 5, 0x33, 100, 0);
        attribute(&mut data, 1, 9, 0x32, 99, 7_000);
        attribute(&mut data, 2, 194, 0x22, 60, 40);
        attribute(&mut data, 3, 197, 0x12, 100, 0);
        let mut thresholds = [0u8; SECTOR];
        thresholds[2] = 5;
        thresholds[3] = 36;
        let r = decode(&data, Some(&thresholds), Some(false));
        assert_eq!(r.says, "ok");
        assert_eq!(r.power_on_hours, Some(7_000));
        assert_eq!(r.temperature_c, Some(40.0));
        assert_eq!(r.threshold_exceeded, Some(false));
        attribute(&mut data, 3, 197, 0x12, 100, 8);
        assert_eq!(decode(&data, Some(&thresholds), None).says, "warning");
        // Reallocated sectors' value down to its threshold: the drive predicts its failure.
        attribute(&mut data, 0, 5, 0x33, 36, 2_000);
        let r = decode(&data, Some(&thresholds), None);
        assert_eq!(
            (r.says.as_str(), r.threshold_exceeded),
            ("failing", Some(true))
        );
        assert_eq!(decode(&[0u8; SECTOR], None, Some(true)).says, "failing");
        assert_eq!(decode(&[0u8; SECTOR], None, None).threshold_exceeded, None);
    }

    #[test]
    fn sense_data_gives_the_registers_or_a_refusal() {
        let mut sense = [0u8; 22];
        sense[0] = 0x72;
        sense[1] = 0x01; // RECOVERED ERROR: CK_COND's registers follow
        sense[7] = 14;
        sense[8..22].copy_from_slice(&[0x09, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0x4F, 0, 0xC2, 0, 0x50]);
        assert!(matches!(
            registers(&sense, false, 0, 2),
            Ok(Some((0x4F, 0xC2)))
        ));
        sense[1] = 0x05;
        assert!(matches!(
            registers(&sense, false, 0, 2),
            Err(Refused::NotTaken)
        ));
        assert!(matches!(registers(&[], true, 0, 0), Ok(None)));
        assert!(matches!(registers(&[], true, 7, 0), Err(Refused::NotTaken)));
    }

    /// QEMU's IDE disk's SMART data, captured through libata's translation
    /// (tests/fixtures/smart/).
    #[test]
    fn captured_smart_data_reads_as_the_drive_meant_it() {
        let hex = include_str!("../../../../../tests/fixtures/smart/qemu-sata.hex").trim();
        let bytes = super::super::unhex(hex);
        let data: [u8; SECTOR] = bytes.try_into().unwrap();
        let r = decode(&data, None, Some(false));
        assert_eq!(r.says, "ok");
        assert_eq!(r.power_on_hours, Some(1));
        assert_eq!(r.reallocated_sectors, Some(0));
        assert_eq!(r.threshold_exceeded, Some(false));
        assert_eq!(r.temperature_c, None, "QEMU keeps it in 190, not 194");
    }
}
