-- ramwatch store, schema 10: the class of GPU driver buffers and device
-- mappings is gpu_driver.  Until schema 9 its key was cuda_driver, a name
-- that hid the DRM buffers (/dev/dri/*, dma-buf) it holds too.  The key is
-- rewritten in every table that stores one; the views (census_classes,
-- census_regions, class_timeline, grafana_process_classes, ...) read these
-- tables, so a query or a Grafana panel sees gpu_driver for every census,
-- old and new.  Each table is read once, whole: no index is on class.

UPDATE census_class_rows SET class = 'gpu_driver' WHERE class = 'cuda_driver';
UPDATE census_region_rows SET class = 'gpu_driver' WHERE class = 'cuda_driver';
UPDATE region_events SET class = 'gpu_driver' WHERE class = 'cuda_driver';
