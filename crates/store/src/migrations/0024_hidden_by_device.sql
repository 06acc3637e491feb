-- Which hidden results a device's hide hid (issue 59, eleventh attack pass: a result a
-- moderator hid on its own, for an abusive label, came back when its device was hidden and
-- restored): the device's key where a device's hide hid it, or hid it as it arrived
-- (`hold::hidden_on_arrival`); a device's restore restores those alone. Results hidden before:
-- those of a hidden device with its reason are taken as its hide's.
ALTER TABLE hidden ADD COLUMN by_device TEXT;
UPDATE hidden SET by_device = device_key WHERE EXISTS (
    SELECT 1 FROM hidden_devices d WHERE d.device_key = hidden.device_key
    AND d.reason = hidden.reason
);
