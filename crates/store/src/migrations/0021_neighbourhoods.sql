-- Each result's sender's neighbourhood (issue 59's second attack pass: one machine with three
-- /24s of one /22 named a device): a keyed hash of its address's /16 (IPv4) or /48 (IPv6)
-- (`sender::neighbourhood`). A device's identity moves only on households of several
-- neighbourhoods (`aggregate::AGREEING`). Results saved before have none: each household
-- is then a neighbourhood of its own, as before.
ALTER TABLE entries ADD COLUMN neighbourhood TEXT;
ALTER TABLE hidden ADD COLUMN neighbourhood TEXT;
