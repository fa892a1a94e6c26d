-- ramwatch store, schema 1: the timelines.
-- Times are unix milliseconds, sizes bytes.  Addresses are the 64-bit value
-- stored as a signed INTEGER (two's complement: printf('%x', start) shows it).

-- "RAMW": tells a ramwatch database from any other SQLite file.
PRAGMA application_id = 1380011351;

-- One row per process instance: (boot_id, pid, start_time) names it, so a
-- reused pid is another process.
CREATE TABLE processes (
    id INTEGER PRIMARY KEY,
    boot_id TEXT NOT NULL,
    pid INTEGER NOT NULL,
    start_time INTEGER NOT NULL,        -- clock ticks after boot (stat field 22)
    started_at INTEGER,                 -- unix ms
    uid INTEGER,
    comm TEXT,
    exe TEXT,
    cmdline TEXT,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    exited_at INTEGER,                  -- NULL while alive
    peak_private INTEGER NOT NULL DEFAULT 0,
    peak_resident INTEGER NOT NULL DEFAULT 0,
    UNIQUE (boot_id, pid, start_time)
) STRICT;

-- The fast tier: one row per StoreInterval (resolution 0), rolled up into
-- minutes (60000) and hours (3600000) as it ages; min, max and last of the
-- samples in the row's interval, which ends at time (a minute or hour row's
-- time is the end of its minute or hour, a multiple of its resolution).
CREATE TABLE samples (
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    resolution INTEGER NOT NULL,
    time INTEGER NOT NULL,
    private_min INTEGER NOT NULL,
    private_max INTEGER NOT NULL,
    private_last INTEGER NOT NULL,
    resident_min INTEGER NOT NULL,
    resident_max INTEGER NOT NULL,
    resident_last INTEGER NOT NULL,
    swap_last INTEGER NOT NULL,
    samples INTEGER NOT NULL,
    PRIMARY KEY (process_id, resolution, time)
) STRICT, WITHOUT ROWID;

CREATE INDEX samples_by_time ON samples (resolution, time);

-- The census tier: why it was taken, how it went, what it cost, and its
-- totals over regions (NULL unless status is ok).
CREATE TABLE censuses (
    id INTEGER PRIMARY KEY,
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('first', 'interval', 'growth', 'mark', 'request')),
    status TEXT NOT NULL CHECK (status IN ('ok', 'exited', 'denied', 'error')),
    light INTEGER NOT NULL DEFAULT 0,   -- 1: smaps_rollup and maps only
    message TEXT,
    private INTEGER,
    resident INTEGER,
    pss INTEGER,
    swap INTEGER,
    size INTEGER,
    regions INTEGER,
    counter_private INTEGER,            -- from status, read with the census
    counter_resident INTEGER,
    peak_resident INTEGER,
    wall_us INTEGER,
    cpu_us INTEGER,
    bytes_read INTEGER
) STRICT;

CREATE INDEX censuses_by_process ON censuses (process_id, time);
CREATE INDEX censuses_by_time ON censuses (time);

-- Class totals per census.
CREATE TABLE census_classes (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    class TEXT NOT NULL,
    private INTEGER,                    -- NULL in a light census (sizes only)
    resident INTEGER,
    pss INTEGER,
    swap INTEGER,
    size INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (census_id, class)
) STRICT, WITHOUT ROWID;

-- File paths, stored once.
CREATE TABLE paths (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE
) STRICT;

-- The largest regions of each census, by rank (0: the largest).
CREATE TABLE census_regions (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    perms TEXT NOT NULL,
    class TEXT NOT NULL,
    rule TEXT,                          -- the classifier rule's key; NULL unknown
    private INTEGER,                    -- NULL in a light census
    resident INTEGER,
    path_id INTEGER REFERENCES paths (id),
    PRIMARY KEY (census_id, rank)
) STRICT, WITHOUT ROWID;

-- A path is deleted once nothing refers to it; these find its referrers.
CREATE INDEX census_regions_by_path ON census_regions (path_id) WHERE path_id IS NOT NULL;

-- The mapped files and libraries of each census.
CREATE TABLE census_files (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    path_id INTEGER NOT NULL REFERENCES paths (id),
    kind TEXT NOT NULL CHECK (kind IN ('image', 'data', 'shared')),
    private INTEGER,                    -- NULL in a light census
    resident INTEGER,
    size INTEGER NOT NULL,
    regions INTEGER NOT NULL,
    PRIMARY KEY (census_id, path_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX census_files_by_path ON census_files (path_id);

-- What changed between a census and the one before it, region by region.
CREATE TABLE region_events (
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('appeared', 'disappeared', 'grew', 'shrank')),
    start INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    path_id INTEGER REFERENCES paths (id),
    class TEXT NOT NULL,
    size INTEGER NOT NULL,
    size_before INTEGER NOT NULL,
    private INTEGER NOT NULL,
    private_before INTEGER NOT NULL,
    resident INTEGER NOT NULL,
    resident_before INTEGER NOT NULL
) STRICT;

CREATE INDEX region_events_by_process ON region_events (process_id, time);
CREATE INDEX region_events_by_census ON region_events (census_id);
CREATE INDEX region_events_by_path ON region_events (path_id) WHERE path_id IS NOT NULL;

-- Named phases of a process, set by clients.
CREATE TABLE marks (
    id INTEGER PRIMARY KEY,
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    name TEXT NOT NULL,
    by_uid INTEGER
) STRICT;

CREATE INDEX marks_by_process ON marks (process_id, time);

-- The machine, every StoreInterval: /proc/meminfo and /proc/pressure/memory
-- (NULL where the kernel has no PSI).
CREATE TABLE system (
    time INTEGER PRIMARY KEY,
    mem_total INTEGER NOT NULL,
    mem_available INTEGER NOT NULL,
    swap_total INTEGER NOT NULL,
    swap_free INTEGER NOT NULL,
    committed_as INTEGER NOT NULL,
    commit_limit INTEGER NOT NULL,
    pressure_some_avg10 REAL,
    pressure_some_avg60 REAL,
    pressure_full_avg10 REAL,
    pressure_full_avg60 REAL,
    pressure_some_total_us INTEGER,
    pressure_full_total_us INTEGER
) STRICT;
