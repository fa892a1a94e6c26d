-- The schema of a new ramwatch database: every table, index, trigger and
-- view ramwatchd creates, after the migrations of schema/migrations/ ran
-- in order.  ramwatch-schema(7) says what each column and view holds;
-- this is the same schema as SQL, as SQLite keeps it (tables by name, each
-- with its indexes and triggers, then views by name).  Read by sqlite3 it
-- makes an empty database of the same schema.
--
-- Generated from a database a real ramwatchd created; do not edit.
-- After adding or changing a migration, regenerate it with one command:
--     make schema-doc
-- (tests/integration/test_schema_doc.py fails until it is.)

PRAGMA auto_vacuum = INCREMENTAL;
PRAGMA journal_mode = WAL;
PRAGMA application_id = 1380011351;  -- 0x52414d57
PRAGMA user_version = 16;

-- table census_class_rows
CREATE TABLE "census_class_rows" (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    class TEXT NOT NULL,
    private INTEGER,                    -- NULL in a light census (sizes only)
    resident INTEGER,
    pss INTEGER,
    swap INTEGER,
    size INTEGER NOT NULL,
    count INTEGER NOT NULL, confirmed INTEGER, gone INTEGER NOT NULL DEFAULT 0, in_use INTEGER, free INTEGER, overhead INTEGER, unknown INTEGER, returnable INTEGER, how TEXT,
    PRIMARY KEY (census_id, class)
) STRICT, WITHOUT ROWID;

-- table census_file_rows
CREATE TABLE "census_file_rows" (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    path_id INTEGER NOT NULL REFERENCES paths (id),
    kind TEXT NOT NULL CHECK (kind IN ('image', 'data', 'shared')),
    private INTEGER,                    -- NULL in a light census
    resident INTEGER,
    size INTEGER NOT NULL,
    regions INTEGER NOT NULL, gone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (census_id, path_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX census_files_by_path ON "census_file_rows" (path_id);

-- table census_gpu_rows
CREATE TABLE "census_gpu_rows" (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    gpu_id INTEGER NOT NULL REFERENCES gpus (id),
    used INTEGER,                       -- NULL: NVML could not say
    graphics INTEGER NOT NULL, gone INTEGER NOT NULL DEFAULT 0,          -- 1: from the graphics list, not the compute list
    PRIMARY KEY (census_id, gpu_id)
) STRICT, WITHOUT ROWID;

-- table census_region_rows
CREATE TABLE "census_region_rows" (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    perms TEXT NOT NULL,
    class TEXT NOT NULL,
    rule TEXT,                          -- the classifier rule's key; NULL unknown
    private INTEGER,                    -- NULL in a light census
    resident INTEGER,
    path_id INTEGER REFERENCES paths (id), evidence TEXT, confirmed INTEGER, part INTEGER, gone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (census_id, rank)
) STRICT, WITHOUT ROWID;
CREATE INDEX census_regions_by_path ON "census_region_rows" (path_id) WHERE path_id IS NOT NULL;

-- table censuses
CREATE TABLE "censuses" (
    id INTEGER PRIMARY KEY,
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('first', 'interval', 'growth', 'mark', 'request', 'limit')),
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
    bytes_read INTEGER,
    gpu_state TEXT CHECK (gpu_state IN ('ok', 'no_library', 'no_devices', 'error')),
    gpu_driver_version INTEGER,
    nvidia_mapped INTEGER,
    evidence_taken INTEGER,
    evidence_why_not TEXT,
    evidence_regions INTEGER,
    evidence_confirmed INTEGER,
    evidence_split INTEGER,
    evidence_reads INTEGER,
    evidence_bytes INTEGER,
    counter_swap INTEGER,
    counter_rss_anon INTEGER,
    counter_rss_file INTEGER,
    counter_rss_shmem INTEGER,
    counter_locked INTEGER,
    counter_hugetlb INTEGER,
    repeats INTEGER REFERENCES censuses (id),
    base INTEGER REFERENCES censuses (id),
    locked INTEGER,
    hugetlb INTEGER,
    confirmed INTEGER,
    threads INTEGER,
    stack_pointers INTEGER,
    evidence_batches INTEGER,
    pages_looked_up INTEGER,
    gpu_message TEXT,
    in_use INTEGER,
    free INTEGER,
    overhead INTEGER,
    unknown INTEGER,
    returnable INTEGER
) STRICT;
CREATE INDEX censuses_by_base ON censuses (base) WHERE base IS NOT NULL;
CREATE INDEX censuses_by_process ON censuses (process_id, time);
CREATE INDEX censuses_by_repeats ON censuses (repeats) WHERE repeats IS NOT NULL;
CREATE INDEX censuses_by_time ON censuses (time);
CREATE TRIGGER censuses_hand_over BEFORE DELETE ON censuses
WHEN old.repeats IS NULL AND EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
BEGIN
    -- the heir, while it still points at old, is the oldest of them
    UPDATE censuses SET repeats = (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1)
    WHERE repeats = old.id
      AND id <> (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1);
    UPDATE census_class_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_region_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_file_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_gpu_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE censuses SET base = (SELECT id FROM censuses WHERE repeats = old.id) WHERE base = old.id;
    UPDATE censuses SET repeats = NULL, base = old.base WHERE repeats = old.id;
END;
CREATE TRIGGER censuses_rekey BEFORE DELETE ON censuses
WHEN old.repeats IS NULL
 AND NOT EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
 AND EXISTS (SELECT 1 FROM censuses WHERE base = old.id)
BEGIN
    -- 1. every delta whole: the key's rows it had none of its own for
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed,
                                   in_use, free, overhead, unknown, returnable, how, gone)
    SELECT c.id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed,
           k.in_use, k.free, k.overhead, k.unknown, k.returnable, k.how, 0
    FROM censuses c JOIN census_class_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_class_rows d WHERE d.census_id = c.id AND d.class = k.class);
    INSERT INTO census_region_rows (census_id, rank, start, "end", perms, class, rule, private, resident, path_id,
                                    evidence, confirmed, part, gone)
    SELECT c.id, k.rank, k.start, k."end", k.perms, k.class, k.rule, k.private, k.resident, k.path_id,
           k.evidence, k.confirmed, k.part, 0
    FROM censuses c JOIN census_region_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_region_rows d WHERE d.census_id = c.id AND d.rank = k.rank);
    INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions, gone)
    SELECT c.id, k.path_id, k.kind, k.private, k.resident, k.size, k.regions, 0
    FROM censuses c JOIN census_file_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_file_rows d WHERE d.census_id = c.id AND d.path_id = k.path_id);
    INSERT INTO census_gpu_rows (census_id, gpu_id, used, graphics, gone)
    SELECT c.id, k.gpu_id, k.used, k.graphics, 0
    FROM censuses c JOIN census_gpu_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_gpu_rows d WHERE d.census_id = c.id AND d.gpu_id = k.gpu_id);
    DELETE FROM census_class_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_region_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_file_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_gpu_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);

    -- 2. the others against the heir, the oldest; it alone still has
    -- base = old.id until step 4
    UPDATE censuses SET base = (SELECT id FROM censuses WHERE base = old.id ORDER BY time, id LIMIT 1)
    WHERE base = old.id
      AND id <> (SELECT id FROM censuses WHERE base = old.id ORDER BY time, id LIMIT 1);

    -- 3. the heir's rows they lack are marked gone (first: the marks look
    -- for the rows the deletion takes), then their rows equal to the
    -- heir's go
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed,
                                   in_use, free, overhead, unknown, returnable, how, gone)
    SELECT c.id, h.class, h.private, h.resident, h.pss, h.swap, h.size, h.count, h.confirmed,
           h.in_use, h.free, h.overhead, h.unknown, h.returnable, h.how, 1
    FROM censuses c JOIN census_class_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_class_rows x WHERE x.census_id = c.id AND x.class = h.class);
    DELETE FROM census_class_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_class_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.class = census_class_rows.class AND h.private IS census_class_rows.private
                    AND h.resident IS census_class_rows.resident AND h.pss IS census_class_rows.pss
                    AND h.swap IS census_class_rows.swap AND h.size IS census_class_rows.size
                    AND h.count IS census_class_rows.count AND h.confirmed IS census_class_rows.confirmed
                    AND h.in_use IS census_class_rows.in_use
                    AND h.free IS census_class_rows.free
                    AND h.overhead IS census_class_rows.overhead
                    AND h.unknown IS census_class_rows.unknown
                    AND h.returnable IS census_class_rows.returnable
                    AND h.how IS census_class_rows.how);

    INSERT INTO census_region_rows (census_id, rank, start, "end", perms, class, rule, private, resident, path_id,
                                    evidence, confirmed, part, gone)
    SELECT c.id, h.rank, h.start, h."end", h.perms, h.class, h.rule, h.private, h.resident, h.path_id,
           h.evidence, h.confirmed, h.part, 1
    FROM censuses c JOIN census_region_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_region_rows x WHERE x.census_id = c.id AND x.rank = h.rank);
    DELETE FROM census_region_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_region_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.rank = census_region_rows.rank AND h.start IS census_region_rows.start
                    AND h."end" IS census_region_rows."end" AND h.perms IS census_region_rows.perms
                    AND h.class IS census_region_rows.class AND h.rule IS census_region_rows.rule
                    AND h.private IS census_region_rows.private AND h.resident IS census_region_rows.resident
                    AND h.path_id IS census_region_rows.path_id AND h.evidence IS census_region_rows.evidence
                    AND h.confirmed IS census_region_rows.confirmed AND h.part IS census_region_rows.part);

    INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions, gone)
    SELECT c.id, h.path_id, h.kind, h.private, h.resident, h.size, h.regions, 1
    FROM censuses c JOIN census_file_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_file_rows x WHERE x.census_id = c.id AND x.path_id = h.path_id);
    DELETE FROM census_file_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_file_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.path_id = census_file_rows.path_id AND h.kind IS census_file_rows.kind
                    AND h.private IS census_file_rows.private AND h.resident IS census_file_rows.resident
                    AND h.size IS census_file_rows.size AND h.regions IS census_file_rows.regions);

    INSERT INTO census_gpu_rows (census_id, gpu_id, used, graphics, gone)
    SELECT c.id, h.gpu_id, h.used, h.graphics, 1
    FROM censuses c JOIN census_gpu_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_gpu_rows x WHERE x.census_id = c.id AND x.gpu_id = h.gpu_id);
    DELETE FROM census_gpu_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_gpu_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.gpu_id = census_gpu_rows.gpu_id AND h.used IS census_gpu_rows.used
                    AND h.graphics IS census_gpu_rows.graphics);

    -- 4. the heir is the key
    UPDATE censuses SET base = NULL WHERE base = old.id;
END;

-- table cgroup_samples
CREATE TABLE cgroup_samples (
    cgroup_id INTEGER NOT NULL REFERENCES cgroups (id) ON DELETE CASCADE,
    resolution INTEGER NOT NULL,
    time INTEGER NOT NULL,
    usage INTEGER NOT NULL,
    usage_max INTEGER NOT NULL,
    limit_applies INTEGER,
    limit_own INTEGER,
    high INTEGER,
    swap INTEGER,
    anon INTEGER,
    file INTEGER,
    kernel INTEGER,
    shmem INTEGER,
    sock INTEGER,
    oom INTEGER,
    oom_kill INTEGER,
    events_high INTEGER,
    events_max INTEGER,
    processes INTEGER NOT NULL,
    processes_private INTEGER NOT NULL,
    processes_resident INTEGER NOT NULL,
    PRIMARY KEY (cgroup_id, resolution, time)
) STRICT, WITHOUT ROWID;
CREATE INDEX cgroup_samples_by_time ON cgroup_samples (resolution, time);

-- table cgroups
CREATE TABLE cgroups (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL CHECK (version IN (1, 2)),
    path TEXT NOT NULL,
    unit TEXT,
    inode INTEGER,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    UNIQUE (path, version)
) STRICT;
CREATE INDEX cgroups_by_unit ON cgroups (unit) WHERE unit IS NOT NULL;

-- table gpu_devices
CREATE TABLE gpu_devices (
    gpu_id INTEGER NOT NULL REFERENCES gpus (id),
    time INTEGER NOT NULL,
    present INTEGER NOT NULL,
    total INTEGER,
    used INTEGER,                       -- by every process; NULL unknown
    free INTEGER,
    error TEXT,
    PRIMARY KEY (gpu_id, time)
) STRICT, WITHOUT ROWID;
CREATE INDEX gpu_devices_by_time ON gpu_devices (time);

-- table gpu_samples
CREATE TABLE gpu_samples (
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    resolution INTEGER NOT NULL,
    time INTEGER NOT NULL,
    gpu_id INTEGER NOT NULL REFERENCES gpus (id),
    used_max INTEGER NOT NULL,
    used_last INTEGER NOT NULL,
    PRIMARY KEY (process_id, resolution, time, gpu_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX gpu_samples_by_time ON gpu_samples (resolution, time);

-- table gpus
CREATE TABLE gpus (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,          -- "GPU-..." or "MIG-..."
    name TEXT NOT NULL,                 -- "NVIDIA A100-SXM4-80GB"
    device_index INTEGER NOT NULL,      -- NVML's index; a MIG instance: its GPU's
    total INTEGER,                      -- its memory; NULL unknown
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
) STRICT;

-- table marks
CREATE TABLE marks (
    id INTEGER PRIMARY KEY,
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    name TEXT NOT NULL,
    by_uid INTEGER
) STRICT;
CREATE INDEX marks_by_process ON marks (process_id, time);

-- table oom_kills
CREATE TABLE oom_kills (
    id INTEGER PRIMARY KEY,
    time INTEGER NOT NULL,
    sources TEXT NOT NULL,
    pid INTEGER,
    process_id INTEGER REFERENCES processes (id) ON DELETE SET NULL,
    comm TEXT,
    uid INTEGER,
    oom_constraint TEXT CHECK (oom_constraint IN ('memcg', 'none', 'cpuset', 'memory_policy')),
    cgroup TEXT,
    limit_cgroup TEXT,
    limit_hit INTEGER,
    usage INTEGER,
    total_vm INTEGER,
    anon_rss INTEGER,
    file_rss INTEGER,
    shmem_rss INTEGER,
    pgtables INTEGER,
    oom_score_adj INTEGER,
    census_id INTEGER REFERENCES censuses (id) ON DELETE SET NULL,
    sample_time INTEGER
) STRICT;
CREATE INDEX oom_kills_by_census ON oom_kills (census_id) WHERE census_id IS NOT NULL;
CREATE INDEX oom_kills_by_process ON oom_kills (process_id) WHERE process_id IS NOT NULL;
CREATE INDEX oom_kills_by_time ON oom_kills (time);

-- table paths
CREATE TABLE paths (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE
) STRICT;

-- table processes
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
    peak_resident INTEGER NOT NULL DEFAULT 0, peak_vram INTEGER NOT NULL DEFAULT 0, platform TEXT NOT NULL DEFAULT 'linux' CHECK (platform IN ('linux', 'windows')), owner TEXT,
    UNIQUE (boot_id, pid, start_time)
) STRICT;

-- table region_events
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
CREATE INDEX region_events_by_census ON region_events (census_id);
CREATE INDEX region_events_by_path ON region_events (path_id) WHERE path_id IS NOT NULL;
CREATE INDEX region_events_by_process ON region_events (process_id, time);

-- table samples
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
    samples INTEGER NOT NULL, until INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (process_id, resolution, time)
) STRICT, WITHOUT ROWID;
CREATE INDEX samples_by_time ON samples (resolution, time);

-- table system
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

-- view annotations
CREATE VIEW annotations AS
SELECT m.time / 1000.0 AS time,
       m.name AS title,
       l.label AS text,
       'pid=' || l.pid AS tags,
       m.process_id
FROM marks m
JOIN process_labels l ON l.process_id = m.process_id;

-- view census_classes
CREATE VIEW census_classes AS
SELECT c.id AS census_id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed,
       k.in_use, k.free, k.overhead, k.unknown, k.returnable, k.how
FROM censuses c
JOIN census_class_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_class_rows d WHERE d.census_id = c.id AND d.class = k.class));

-- view census_files
CREATE VIEW census_files AS
SELECT c.id AS census_id, k.path_id, k.kind, k.private, k.resident, k.size, k.regions
FROM censuses c
JOIN census_file_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_file_rows d WHERE d.census_id = c.id AND d.path_id = k.path_id));

-- view census_gpu
CREATE VIEW census_gpu AS
SELECT c.id AS census_id, k.gpu_id, k.used, k.graphics
FROM censuses c
JOIN census_gpu_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_gpu_rows d WHERE d.census_id = c.id AND d.gpu_id = k.gpu_id));

-- view census_log
CREATE VIEW census_log AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       c.trigger,
       c.status,
       c.light,
       c.message,
       c.private,
       c.resident,
       c.wall_us,
       c.cpu_us,
       c.repeats
FROM censuses c
JOIN process_labels l ON l.process_id = c.process_id;

-- view census_regions
CREATE VIEW census_regions AS
SELECT c.id AS census_id, k.rank, k.start, k."end", k.perms, k.class, k.rule, k.private, k.resident, k.path_id,
       k.evidence, k.confirmed, k.part
FROM censuses c
JOIN census_region_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_region_rows d WHERE d.census_id = c.id AND d.rank = k.rank));

-- view cgroup_timeline
CREATE VIEW cgroup_timeline AS
SELECT s.time / 1000.0 AS time,
       s.cgroup_id,
       g.path,
       g.unit,
       g.version,
       s.resolution,
       s.usage,
       s.usage_max,
       s.limit_applies,
       s.limit_applies - s.usage AS headroom,
       s.high,
       s.swap,
       s.anon,
       s.file,
       s.kernel,
       s.shmem,
       s.sock,
       s.oom,
       s.oom_kill,
       s.processes,
       s.processes_private,
       max(s.usage - s.processes_private, 0) AS beyond_processes
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id;

-- view class_timeline
CREATE VIEW class_timeline AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       c.trigger,
       k.class,
       k.private,
       k.resident,
       k.pss,
       k.swap,
       k.count,
       c.repeats,
       k.in_use,
       k.free,
       k.overhead,
       k.unknown,
       k.returnable
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

-- view file_timeline
CREATE VIEW file_timeline AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       p.path,
       f.kind,
       f.private,
       f.resident,
       f.size,
       f.regions,
       c.repeats
FROM censuses c
JOIN census_files f ON f.census_id = coalesce(c.repeats, c.id)
JOIN paths p ON p.id = f.path_id
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

-- view gpu_timeline
CREATE VIEW gpu_timeline AS
SELECT d.time / 1000.0 AS time,
       g.device_index,
       g.uuid,
       g.name,
       d.present,
       d.total,
       d.used,
       d.free,
       d.error
FROM gpu_devices d
JOIN gpus g ON g.id = d.gpu_id;

-- view grafana_census_rate
CREATE VIEW grafana_census_rate AS
SELECT (c.time / 60000) * 60.0 AS time,
       c.trigger AS metric,
       count(*) AS value,
       (c.time / 60000) * 60000 AS time_ms
FROM censuses c
GROUP BY (c.time / 60000) * 60000, c.trigger;

-- view grafana_cgroup_timeline
CREATE VIEW grafana_cgroup_timeline AS
SELECT s.time / 1000.0 AS time,
       coalesce(g.unit, g.path) || ' usage' AS metric,
       s.usage AS value,
       s.time AS time_ms,
       'usage' AS kind,
       s.cgroup_id,
       g.path,
       g.unit,
       s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' limit', s.limit_applies, s.time, 'limit', s.cgroup_id,
       g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
WHERE s.limit_applies IS NOT NULL
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' high', s.high, s.time, 'high', s.cgroup_id,
       g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
WHERE s.high IS NOT NULL
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' beyond processes', max(s.usage - s.processes_private, 0),
       s.time, 'beyond_processes', s.cgroup_id, g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id;

-- view grafana_gpu_devices
CREATE VIEW grafana_gpu_devices AS
SELECT d.time / 1000.0 AS time,
       'GPU ' || g.device_index || CASE WHEN g.uuid LIKE 'MIG-%' THEN ' ' || g.uuid ELSE '' END || ' used'
           AS metric,
       d.used AS value,
       d.time AS time_ms,
       'used' AS kind,
       g.device_index,
       g.uuid,
       g.name
FROM gpu_devices d
JOIN gpus g ON g.id = d.gpu_id
WHERE d.present = 1 AND d.used IS NOT NULL
UNION ALL
SELECT d.time / 1000.0,
       'GPU ' || g.device_index || CASE WHEN g.uuid LIKE 'MIG-%' THEN ' ' || g.uuid ELSE '' END || ' total',
       d.total,
       d.time,
       'total',
       g.device_index,
       g.uuid,
       g.name
FROM gpu_devices d
JOIN gpus g ON g.id = d.gpu_id
WHERE d.present = 1 AND d.total IS NOT NULL;

-- view grafana_marks
CREATE VIEW grafana_marks AS
SELECT m.time / 1000.0 AS time,
       m.name AS title,
       l.label AS text,
       'pid=' || l.pid AS tags,
       coalesce((SELECT min(n.time) FROM marks n WHERE n.process_id = m.process_id AND n.time > m.time),
                p.exited_at) / 1000.0 AS time_end,
       m.time AS time_ms,
       m.process_id,
       l.pid,
       l.label
FROM marks m
JOIN processes p ON p.id = m.process_id
JOIN process_labels l ON l.process_id = m.process_id;

-- view grafana_memory_pressure
CREATE VIEW grafana_memory_pressure AS
SELECT time / 1000.0 AS time, 'pressure_some_avg10' AS metric, pressure_some_avg10 AS value, time AS time_ms
FROM system WHERE pressure_some_avg10 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_full_avg10', pressure_full_avg10, time
FROM system WHERE pressure_full_avg10 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_some_avg60', pressure_some_avg60, time
FROM system WHERE pressure_some_avg60 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_full_avg60', pressure_full_avg60, time
FROM system WHERE pressure_full_avg60 IS NOT NULL;

-- view grafana_oom_kills
CREATE VIEW grafana_oom_kills AS
SELECT k.time / 1000.0 AS time,
       coalesce(k.comm, '?') || CASE WHEN k.pid IS NULL THEN '' ELSE ' [' || k.pid || ']' END AS label,
       1 AS value,
       k.time AS time_ms,
       'OOM kill of ' || coalesce(k.comm, 'a process') || CASE WHEN k.pid IS NULL THEN '' ELSE ' [' || k.pid || ']' END
           || CASE WHEN k.limit_cgroup IS NOT NULL THEN ' at the limit of ' || k.limit_cgroup ELSE '' END AS text,
       k.id AS oom_kill_id,
       k.pid,
       k.process_id,
       k.comm,
       k.uid,
       k.sources,
       k.oom_constraint,
       k.cgroup,
       k.limit_cgroup,
       k.limit_hit,
       k.usage,
       k.total_vm,
       k.anon_rss,
       k.file_rss,
       k.shmem_rss,
       k.census_id
FROM oom_kills k;

-- view grafana_process_classes
CREATE VIEW grafana_process_classes AS
SELECT c.time / 1000.0 AS time,
       k.class AS metric,
       k.private AS value,
       c.time AS time_ms,
       c.process_id,
       l.pid,
       l.label,
       k.resident,
       c.id AS census_id,
       k.in_use,
       k.free,
       k.returnable
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.private IS NOT NULL;

-- view grafana_process_in_use
CREATE VIEW grafana_process_in_use AS
SELECT c.time / 1000.0 AS time,
       k.class || ' in use' AS metric,
       k.in_use AS value,
       c.time AS time_ms,
       'in_use' AS kind,
       k.class,
       c.process_id,
       l.pid,
       l.label,
       c.id AS census_id
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.in_use IS NOT NULL
UNION ALL
SELECT c.time / 1000.0,
       k.class || ' free',
       k.free,
       c.time,
       'free',
       k.class,
       c.process_id,
       l.pid,
       l.label,
       c.id
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.free IS NOT NULL;

-- view grafana_process_memory
CREATE VIEW grafana_process_memory AS
SELECT e.time / 1000.0 AS time,
       l.label || ' private' AS metric,
       e.private_max AS value,
       e.time AS time_ms,
       'private' AS kind,
       e.process_id,
       l.pid,
       l.label,
       e.resolution
FROM samples_ends e
JOIN process_labels l ON l.process_id = e.process_id
UNION ALL
SELECT e.time / 1000.0,
       l.label || ' resident',
       e.resident_max,
       e.time,
       'resident',
       e.process_id,
       l.pid,
       l.label,
       e.resolution
FROM samples_ends e
JOIN process_labels l ON l.process_id = e.process_id;

-- view grafana_process_vram
CREATE VIEW grafana_process_vram AS
SELECT s.time / 1000.0 AS time,
       l.label || ' vram' AS metric,
       sum(s.used_max) AS value,
       s.time AS time_ms,
       s.process_id,
       l.pid,
       l.label,
       s.resolution
FROM gpu_samples s
JOIN process_labels l ON l.process_id = s.process_id
GROUP BY s.process_id, s.resolution, s.time;

-- view grafana_system_memory
CREATE VIEW grafana_system_memory AS
SELECT time / 1000.0 AS time, 'mem_used' AS metric, mem_total - mem_available AS value, time AS time_ms
FROM system
UNION ALL
SELECT time / 1000.0, 'mem_available', mem_available, time FROM system
UNION ALL
SELECT time / 1000.0, 'mem_total', mem_total, time FROM system
UNION ALL
SELECT time / 1000.0, 'swap_used', swap_total - swap_free, time FROM system
UNION ALL
SELECT time / 1000.0, 'committed_as', committed_as, time FROM system
UNION ALL
SELECT time / 1000.0, 'commit_limit', commit_limit, time FROM system;

-- view machine_memory
CREATE VIEW machine_memory AS
SELECT time / 1000.0 AS time,
       mem_total,
       mem_available,
       mem_total - mem_available AS mem_used,
       swap_total - swap_free AS swap_used,
       committed_as,
       commit_limit,
       pressure_some_avg10,
       pressure_full_avg10
FROM system;

-- view memory_timeline
CREATE VIEW memory_timeline AS
SELECT s.time / 1000.0 AS time,
       s.process_id,
       l.label,
       l.pid,
       s.resolution,
       s.private_last AS private,
       s.private_max,
       s.resident_last AS resident,
       s.resident_max,
       s.swap_last AS swap,
       s.until / 1000.0 AS until
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id
UNION ALL
SELECT s.until / 1000.0, s.process_id, l.label, l.pid, s.resolution, s.private_last, s.private_max,
       s.resident_last, s.resident_max, s.swap_last, s.until / 1000.0
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id
WHERE s.until > s.time;

-- view process_labels
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

-- view region_changes
CREATE VIEW region_changes AS
SELECT e.time / 1000.0 AS time,
       e.process_id,
       l.label,
       e.kind,
       printf('0x%x', e.start) AS start,
       e.class,
       p.path,
       e.size,
       e.size_before,
       e.private - e.private_before AS private_change,
       e.resident - e.resident_before AS resident_change
FROM region_events e
JOIN process_labels l ON l.process_id = e.process_id
LEFT JOIN paths p ON p.id = e.path_id;

-- view samples_ends
CREATE VIEW samples_ends AS
SELECT process_id, resolution, time, private_max, resident_max FROM samples
UNION ALL
SELECT process_id, resolution, until, private_max, resident_max FROM samples WHERE until > time;

-- view vram_timeline
CREATE VIEW vram_timeline AS
SELECT s.time / 1000.0 AS time,
       s.process_id,
       l.label,
       l.pid,
       s.resolution,
       g.device_index,
       g.uuid,
       g.name,
       s.used_last AS used,
       s.used_max
FROM gpu_samples s
JOIN gpus g ON g.id = s.gpu_id
JOIN process_labels l ON l.process_id = s.process_id;
