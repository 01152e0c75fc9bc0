-- TLS settings of a dictionary's target given as `sds target set --tls-*` fields
-- (docs/breakout.md, "TLS"); NULL: the URL's TLS parameters, else the dialect's default. The
-- files are absolute paths, read when a session connects.
ALTER TABLE targets ADD COLUMN tls_mode TEXT;
ALTER TABLE targets ADD COLUMN tls_ca TEXT;
ALTER TABLE targets ADD COLUMN tls_cert TEXT;
ALTER TABLE targets ADD COLUMN tls_key TEXT;
