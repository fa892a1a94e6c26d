-- ramwatch store, schema 14: processes of Windows beside those of Linux,
-- in one database format that either platform's ramwatch reads.
--
-- platform says where the process ran: 'linux' or 'windows'; every row
-- stored before schema 14 is Linux's.  owner is the account that owns a
-- Windows process as Windows names it (DOMAIN\user, or its SID, S-1-5-...,
-- when the name cannot be looked up); NULL on Linux, where uid says it.
-- On Windows uid is NULL, start_time is the process's creation time in unix
-- ms (with the pid, what tells two instances apart, as clock ticks after
-- boot do on Linux) and started_at the same time.
ALTER TABLE processes ADD COLUMN platform TEXT NOT NULL DEFAULT 'linux' CHECK (platform IN ('linux', 'windows'));
ALTER TABLE processes ADD COLUMN owner TEXT;

-- process_labels gains platform, and owner as text on both platforms: the
-- account on Windows, the uid (in decimal) on Linux, NULL when unknown.
-- The views built on it name their columns, so they stay as they were.
DROP VIEW process_labels;
CREATE VIEW process_labels AS
SELECT id AS process_id,
       pid,
       comm,
       uid,
       coalesce(comm, '?') || ' [' || pid || ']' AS label,
       first_seen / 1000.0 AS first_seen,
       last_seen / 1000.0 AS last_seen,
       exited_at / 1000.0 AS exited_at,
       peak_private,
       peak_resident,
       cmdline,
       peak_vram,
       platform,
       coalesce(owner, CAST(uid AS TEXT)) AS owner
FROM processes;
