-- How many independent neighbourhoods a device's results come from (issue 59, tenth step: a
-- device measured by one household ranked above every other on its word alone, under a
-- look-alike name, a new spelling of a hidden device, or figures no print foresaw): the most
-- neighbourhoods (an IPv4 /16, an IPv6 /48) of one address family among its submitters
-- (`aggregate::independent`). A leaderboard ranks a device once results of it came from as
-- many as the site asks (`iomark serve --corroboration`, 2 by default) and lists the others
-- after, unranked. Derived anew for every device when a store is opened (rules 16).
ALTER TABLE devices ADD COLUMN neighbourhoods BIGINT NOT NULL DEFAULT 0;
