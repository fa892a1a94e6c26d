/* GPU memory in a census (test-gpu.c tests the module itself): the
 * census's GPU section as the stand-ins answer it, through JSON and back,
 * rendered, and in a live census of this process. */
#include "gpu-testlib.h"

/* ------------------------------------------------------------ the census */

static struct census *census_with_pid(int pid)
{
	struct census *c = census_new();
	assert_non_null(c);
	c->pid = pid;
	return c;
}

static struct census *json_round_trip(const struct census *c)
{
	json_t *j = census_to_json(c, false);
	struct census *back = NULL;
	struct error err = { 0 };
	assert_non_null(j);
	if (census_from_json(j, &back, &err) < 0)
		fail_msg("census_from_json: %s", err.message);
	json_decref(j);
	return back;
}

static void test_census_section(void **state)
{
	(void)state;
	script("device " A100 "device " RTX "compute 0 77 1073741824\ngraphics 1 77 na\ncompute 1 78 5\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	take(g, &s);

	struct census *c = census_with_pid(77);
	assert_int_equal(scan_fill_gpu(c, &s, true), 0);
	assert_true(c->gpu.taken);
	assert_int_equal(c->gpu.state, GPU_OK);
	assert_true(c->gpu.nvidia_mapped);
	assert_int_equal(c->gpu.driver_version, 12040);
	assert_int_equal(c->gpu.n_uses, 2);
	assert_int_equal(c->gpu.uses[0].index, 0);
	assert_string_equal(c->gpu.uses[0].uuid, "GPU-11111111-2222-3333-4444-555555555555");
	assert_string_equal(c->gpu.uses[0].name, "NVIDIA A100-SXM4-80GB");
	assert_true(c->gpu.uses[0].used == 1 * GiB && c->gpu.uses[0].total == 80 * GiB);
	assert_false(c->gpu.uses[0].graphics);
	assert_int_equal(c->gpu.uses[1].index, 1);
	assert_true(c->gpu.uses[1].used == GPU_BYTES_UNKNOWN);
	assert_true(c->gpu.uses[1].graphics);

	/* JSON: exact bytes, null for unknown, and back */
	json_t *j = census_to_json(c, false);
	json_t *gj = json_object_get(j, "gpu");
	assert_string_equal(json_string_value(json_object_get(gj, "state")), "ok");
	assert_true(json_is_null(json_object_get(gj, "message")));
	assert_int_equal(json_integer_value(json_object_get(gj, "driver_version")), 12040);
	assert_true(json_is_true(json_object_get(gj, "nvidia_mapped")));
	json_t *d0 = json_array_get(json_object_get(gj, "devices"), 0), *d1 = json_array_get(json_object_get(gj, "devices"), 1);
	assert_int_equal(json_integer_value(json_object_get(d0, "used")), 1073741824);
	assert_int_equal(json_integer_value(json_object_get(d0, "total")), 85899345920);
	assert_true(json_is_false(json_object_get(d0, "graphics")));
	assert_true(json_is_null(json_object_get(d1, "used")));
	json_decref(j);

	struct census *back = json_round_trip(c);
	assert_true(back->gpu.taken);
	assert_int_equal(back->gpu.n_uses, 2);
	assert_memory_equal(back->gpu.uses, c->gpu.uses, 2 * sizeof(*c->gpu.uses));
	assert_int_equal(back->gpu.driver_version, 12040);
	assert_true(back->gpu.nvidia_mapped);
	census_free(back);

	/* a process without a GPU: taken, empty */
	struct census *none = census_with_pid(12345);
	assert_int_equal(scan_fill_gpu(none, &s, false), 0);
	assert_true(none->gpu.taken);
	assert_int_equal(none->gpu.n_uses, 0);
	back = json_round_trip(none);
	assert_true(back->gpu.taken);
	assert_int_equal(back->gpu.n_uses, 0);
	census_free(back);
	census_free(none);
	census_free(c);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* not asked for: null, and read back as not taken */
	c = census_with_pid(1);
	j = census_to_json(c, false);
	assert_true(json_is_null(json_object_get(j, "gpu")));
	json_decref(j);
	back = json_round_trip(c);
	assert_false(back->gpu.taken);
	census_free(back);
	census_free(c);

	/* no library: the state and the reason */
	g = open_with("/nonexistent/libnvidia-ml.so.1", "/nonexistent/libcuda.so.1");
	take(g, &s);
	c = census_with_pid(1);
	assert_int_equal(scan_fill_gpu(c, &s, false), 0);
	back = json_round_trip(c);
	assert_int_equal(back->gpu.state, GPU_NO_LIBRARY);
	assert_non_null(strstr(back->gpu.message, "cannot load NVML"));
	census_free(back);
	census_free(c);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

static void test_census_json_errors(void **state)
{
	(void)state;
	static const struct {
		const char *gpu, *field;
	} bad[] = {
		{ "\"yes\"", "gpu" },
		{ "{\"state\": \"sleepy\", \"devices\": []}", "gpu.state" },
		{ "{\"state\": \"ok\"}", "gpu.devices" },
		{ "{\"state\": \"ok\", \"devices\": [{\"index\": -1}]}", "gpu.devices[0].index" },
		{ "{\"state\": \"ok\", \"devices\": [{\"index\": 0, \"used\": \"lots\"}]}", "gpu.devices[0].used" },
		{ "{\"state\": \"ok\", \"devices\": [{\"index\": 0, \"used\": 1, \"graphics\": 1}]}", "gpu.devices[0].graphics" },
	};
	struct census *c = census_with_pid(1);
	json_t *base = census_to_json(c, false);
	census_free(c);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		json_t *j = json_deep_copy(base), *gj = json_loads(bad[i].gpu, JSON_DECODE_ANY, NULL);
		struct census *back = NULL;
		struct error err = { 0 };
		assert_non_null(gj);
		json_object_set_new(j, "gpu", gj);
		assert_int_equal(census_from_json(j, &back, &err), -EBADMSG);
		if (!strstr(err.message, bad[i].field))
			fail_msg("%s: \"%s\" does not name %s", bad[i].gpu, err, bad[i].field);
		json_decref(j);
	}
	/* a census from before the section has none: not taken */
	json_object_del(base, "gpu");
	struct census *back = NULL;
	struct error err;
	assert_int_equal(census_from_json(base, &back, &err), 0);
	assert_false(back->gpu.taken);
	census_free(back);
	json_decref(base);
}

static char *render(const struct census *c, bool gpu_asked)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render_options o = { .format = RENDER_TEXT, .top = 5, .gpu_asked = gpu_asked };
	assert_non_null(f);
	assert_int_equal(render_census(c, &o, f), 0);
	fclose(f);
	return buf;
}

static void test_render(void **state)
{
	(void)state;
	struct census *c = census_with_pid(9);
	char *out;

	/* not taken: nothing, even when asked */
	out = render(c, true);
	assert_null(strstr(out, "GPU"));
	free(out);

	/* a GPU process: the table */
	c->gpu = (struct census_gpu){ .taken = true, .state = GPU_OK, .driver_version = 12040, .n_uses = 1 };
	c->gpu.uses = calloc(1, sizeof(*c->gpu.uses));
	c->gpu.uses[0] = (struct census_gpu_use){ .index = 3, .uuid = "GPU-1", .name = "NVIDIA L4", .used = 3 * GiB,
						  .total = 24 * GiB };
	out = render(c, false);
	assert_non_null(strstr(out, "GPU memory (device memory this process holds, from NVML; CUDA 12.4)"));
	assert_non_null(strstr(out, "NVIDIA L4"));
	assert_non_null(strstr(out, "3.00 GiB"));
	assert_non_null(strstr(out, "compute"));
	free(out);

	/* no GPU use: a line only for a GPU process or when asked */
	c->gpu.n_uses = 0;
	out = render(c, false);
	assert_null(strstr(out, "GPU memory"));
	free(out);
	c->gpu.nvidia_mapped = true;
	out = render(c, false);
	assert_non_null(strstr(out, "GPU memory: NVML lists no device memory held by this process"));
	free(out);

	/* no driver */
	c->gpu.state = GPU_NO_LIBRARY;
	c->gpu.nvidia_mapped = false;
	out = render(c, false);
	assert_null(strstr(out, "no NVIDIA driver"));
	free(out);
	out = render(c, true);
	assert_non_null(strstr(out, "no NVIDIA driver: GPU memory not shown\n"));
	free(out);
	c->gpu.nvidia_mapped = true;
	out = render(c, false);
	assert_non_null(strstr(out, "no NVIDIA driver: GPU memory not shown\n"));
	free(out);

	c->gpu.state = GPU_ERROR;
	snprintf(c->gpu.message, sizeof(c->gpu.message), "NVML did not start (nvmlInit_v2): Driver Not Loaded");
	out = render(c, false);
	assert_non_null(strstr(out, "GPU memory not shown: NVML did not start (nvmlInit_v2): Driver Not Loaded\n"));
	free(out);
	census_free(c);
}

/* A live census of this process, which the script lists. */
static void test_scan_live(void **state)
{
	(void)state;
	script("device " A100 "compute 0 %d 536870912\n", getpid());
	struct gpu *g = open_standin();
	struct scan_options o = { .gpu = g, .skip_stack_pointers = true };
	struct error err;
	struct census *c = NULL;

	if (scan_process(getpid(), &o, &c, &err) < 0)
		fail_msg("scan: %s", err.message);
	assert_true(c->gpu.taken);
	assert_false(c->gpu.nvidia_mapped);
	assert_int_equal(c->gpu.n_uses, 1);
	assert_true(c->gpu.uses[0].used == 512 * MiB);
	census_free(c);

	/* one snapshot for several censuses */
	struct gpu_snapshot s;
	take(g, &s);
	o = (struct scan_options){ .gpu_snapshot = &s, .skip_stack_pointers = true, .light = true };
	assert_int_equal(scan_process(getpid(), &o, &c, &err), 0);
	assert_int_equal(c->gpu.n_uses, 1);
	census_free(c);

	/* not asked: not taken */
	o = (struct scan_options){ .skip_stack_pointers = true };
	assert_int_equal(scan_process(getpid(), &o, &c, &err), 0);
	assert_false(c->gpu.taken);
	census_free(c);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_census_section),
		cmocka_unit_test(test_census_json_errors),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_scan_live),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
