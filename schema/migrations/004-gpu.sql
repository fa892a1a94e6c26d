-- ramwatch store, schema 4: NVIDIA GPU memory.
-- Where NVML answers, every StoreInterval: each device's memory, and the
-- device memory (VRAM) each watched process holds on each device; at each
-- census, the process's VRAM by device.  A host without NVIDIA GPUs has no
-- rows in these tables.  Sizes are bytes, times unix milliseconds.

-- Every GPU (or MIG instance) ever seen, stored once: a handful of rows per
-- host, kept (the time series refer to them).
CREATE TABLE gpus (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,          -- "GPU-..." or "MIG-..."
    name TEXT NOT NULL,                 -- "NVIDIA A100-SXM4-80GB"
    device_index INTEGER NOT NULL,      -- NVML's index; a MIG instance: its GPU's
    total INTEGER,                      -- its memory; NULL unknown
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
) STRICT;

-- Each device every StoreInterval.  A device that answers an error (it
-- fell off the bus) has present 0, NULL memory and the error.
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

-- The VRAM a watched process holds on a device: one raw row per
-- StoreInterval (NVML gives one figure per look), at the time of the
-- process's row in samples, rolled up with it into minute and hour rows
-- (the largest and the last figure of the interval).
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

-- The GPU section of a census: NVML's state when the census was taken
-- (NULL: GPU memory was not looked at), the driver's CUDA version, whether
-- the process maps NVIDIA's device files; census_gpu holds its devices.
ALTER TABLE censuses ADD COLUMN gpu_state TEXT
    CHECK (gpu_state IN ('ok', 'no_library', 'no_devices', 'error'));
ALTER TABLE censuses ADD COLUMN gpu_driver_version INTEGER;
ALTER TABLE censuses ADD COLUMN nvidia_mapped INTEGER;

CREATE TABLE census_gpu (
    census_id INTEGER NOT NULL REFERENCES censuses (id) ON DELETE CASCADE,
    gpu_id INTEGER NOT NULL REFERENCES gpus (id),
    used INTEGER,                       -- NULL: NVML could not say
    graphics INTEGER NOT NULL,          -- 1: from the graphics list, not the compute list
    PRIMARY KEY (census_id, gpu_id)
) STRICT, WITHOUT ROWID;

-- The largest VRAM the process held, summed over its devices.
ALTER TABLE processes ADD COLUMN peak_vram INTEGER NOT NULL DEFAULT 0;

-- Views, as those of schema 2 and 3: time in unix seconds.

-- process_labels gains peak_vram (the views built on it name their columns).
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
       peak_vram
FROM processes;

-- Each device over time.
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

-- The VRAM of each process on each device over time.
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

-- Grafana: the VRAM of every process over time (summed over its devices),
-- the largest figure of the row's interval, as grafana_process_memory.
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

-- Grafana: each device's memory, used and total, while it answers; metric
-- is "GPU INDEX used" or "GPU INDEX total" (a MIG instance: "GPU INDEX
-- MIG-... used").
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
