/* The runtime detector (scanner/runtimes.c): which runtime and allocator a
 * process runs, told by the names of its files and program as Linux and
 * Windows show them; and the JVM's heap limit, read from a command line as
 * the JVM reads -Xmx and -XX:MaxHeapSize=. */
#include "testlib.h"

#include "runtimes.h"

static struct runtimes of_files(const char *const *paths, const char *program)
{
	struct runtimes rt;
	runtimes_init(&rt);
	if (program)
		runtimes_note_program(&rt, program);
	for (size_t i = 0; paths && paths[i]; i++)
		runtimes_note_file(&rt, paths[i]);
	return rt;
}

static void test_nothing_known(void **state)
{
	(void)state;
	static const char *const c_program[] = { "/usr/bin/bash", "/usr/lib/x86_64-linux-gnu/libc.so.6",
						 "[heap]", "/dev/zero (deleted)", NULL };
	struct runtimes rt = of_files(c_program, "/usr/bin/bash");
	assert_false(rt.jvm || rt.clr || rt.v8 || rt.python || rt.openblas || rt.nvidia);
	assert_int_equal(rt.python_minor, -1);
	assert_int_equal(rt.allocator, RUNTIMES_MALLOC_GLIBC);
	assert_true(rt.jvm_max_heap == 0);
	runtimes_note_file(&rt, NULL);
	runtimes_note_program(&rt, NULL);
	assert_false(rt.jvm || rt.v8 || rt.python);
}

static void test_linux_names(void **state)
{
	(void)state;
	static const char *const jvm[] = { "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", NULL };
	assert_true(of_files(jvm, "/usr/lib/jvm/java-17-openjdk-amd64/bin/java").jvm);
	/* replaced by a package upgrade while the JVM runs */
	static const char *const jvm_deleted[] = { "/usr/lib/jvm/lib/server/libjvm.so (deleted)", NULL };
	assert_true(of_files(jvm_deleted, NULL).jvm);
	static const char *const not_jvm[] = { "/usr/lib/libjvm.so.old", "/opt/x/libjvmti.so", NULL };
	assert_false(of_files(not_jvm, NULL).jvm);

	static const char *const node[] = { "/usr/lib/x86_64-linux-gnu/libnode.so.109", NULL };
	assert_true(of_files(node, "/usr/bin/node").v8);
	assert_true(of_files(node, NULL).v8);
	assert_true(of_files(NULL, "/usr/bin/node").v8);
	assert_true(of_files(NULL, "/opt/google/chrome/chrome").v8);
	assert_false(of_files(NULL, "/usr/bin/nodes").v8);

	static const char *const python[] = { "/usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0", NULL };
	struct runtimes rt = of_files(python, NULL);
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, 9);
	/* the program tells first: its version is the one kept */
	rt = of_files(python, "/usr/bin/python3.11");
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, 11);
	/* the program mapped as a file, as the evidence pass and a saved smaps
	 * file see it */
	static const char *const python_exe[] = { "/usr/bin/python3.12", NULL };
	rt = of_files(python_exe, NULL);
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, 12);
	static const char *const stable_abi[] = { "/usr/lib/libpython3.so", NULL };
	rt = of_files(stable_abi, NULL);
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, -1);
	static const char *const python2[] = { "/usr/lib/libpython2.7.so.1.0", NULL };
	rt = of_files(python2, NULL);
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, -1);
	/* a module of Python's is no interpreter */
	static const char *const module[] = { "/usr/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so",
					      NULL };
	assert_false(of_files(module, NULL).python);

	static const char *const blas[] = { "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
					    "/usr/lib/python3/dist-packages/numpy.libs/libscipy_openblas64_-ff651d7f.so",
					    NULL };
	assert_true(of_files(blas, NULL).openblas);
	assert_true(of_files(blas + 1, NULL).openblas);

	static const char *const gpu[] = { "/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm", NULL };
	assert_true(of_files(gpu, NULL).nvidia);
	static const char *const dri[] = { "/dev/dri/renderD128", NULL };
	assert_false(of_files(dri, NULL).nvidia);
}

static void test_allocators(void **state)
{
	(void)state;
	static const char *const je[] = { "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", NULL };
	static const char *const mi[] = { "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.1", NULL };
	static const char *const tc[] = { "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.16", NULL };
	static const char *const both[] = { "/usr/lib/libjemalloc.so.2", "/usr/lib/libtcmalloc.so.4", NULL };
	assert_int_equal(of_files(je, NULL).allocator, RUNTIMES_MALLOC_JEMALLOC);
	assert_int_equal(of_files(mi, NULL).allocator, RUNTIMES_MALLOC_MIMALLOC);
	assert_int_equal(of_files(tc, NULL).allocator, RUNTIMES_MALLOC_TCMALLOC);
	/* two mapped: the last in address order is the one taken */
	assert_int_equal(of_files(both, NULL).allocator, RUNTIMES_MALLOC_TCMALLOC);
}

static void test_windows_names(void **state)
{
	(void)state;
	static const char *const jvm[] = { "C:\\Program Files\\Java\\jdk-21\\bin\\server\\jvm.dll", NULL };
	assert_true(of_files(jvm, "C:\\Program Files\\Java\\jdk-21\\bin\\java.exe").jvm);
	static const char *const jvm_upper[] = { "\\Device\\HarddiskVolume3\\Java\\bin\\server\\JVM.DLL", NULL };
	assert_true(of_files(jvm_upper, NULL).jvm);
	static const char *const clr[] = { "C:\\Program Files\\dotnet\\shared\\Microsoft.NETCore.App\\8.0.0\\coreclr.dll",
					   NULL };
	assert_true(of_files(clr, NULL).clr);
	static const char *const framework[] = { "C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll", NULL };
	assert_true(of_files(framework, NULL).clr);

	static const char *const python[] = { "C:\\Python311\\python311.dll", NULL };
	struct runtimes rt = of_files(python, "C:\\Python311\\python.exe");
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, 11);
	static const char *const python3[] = { "C:\\Python311\\python3.dll", NULL };
	rt = of_files(python3, NULL);
	assert_true(rt.python);
	assert_int_equal(rt.python_minor, -1);

	static const char *const blas[] = { "C:\\x\\numpy.libs\\libopenblas64__v0.3.23-gcc_10_3_0.dll", NULL };
	assert_true(of_files(blas, NULL).openblas);

	assert_true(of_files(NULL, "C:\\Program Files\\nodejs\\node.exe").v8);
	assert_true(of_files(NULL, "C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\MSEDGE.EXE").v8);
	assert_true(of_files(NULL, "C:\\Users\\u\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe").v8);
	assert_false(of_files(NULL, "C:\\Windows\\notepad.exe").v8);
	assert_false(of_files(NULL, "C:\\x\\node.exe.bak").v8);
}

static void test_jvm_max_heap(void **state)
{
	(void)state;
	/* each unit, in either case, and plain bytes */
	assert_true(runtimes_jvm_max_heap("java -Xmx512k Main") == 512 * KiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx512K Main") == 512 * KiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx512m Main") == 512 * MiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx512M Main") == 512 * MiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g -jar app.jar") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4G -jar app.jar") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx1t Main") == 1 * TiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx2T Main") == 2 * TiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx1073741824 Main") == 1 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx0x40000000 Main") == 1 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx0X10m Main") == 16 * MiB);
	/* the same flag by its name */
	assert_true(runtimes_jvm_max_heap("java -XX:MaxHeapSize=3g Main") == 3 * GiB);
	assert_true(runtimes_jvm_max_heap("java -XX:MaxHeapSize=268435456 Main") == 256 * MiB);
	/* the last wins, whichever spelling */
	assert_true(runtimes_jvm_max_heap("java -Xmx1g -Xmx2g Main") == 2 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx1g -XX:MaxHeapSize=2g Main") == 2 * GiB);
	assert_true(runtimes_jvm_max_heap("java -XX:MaxHeapSize=2g -Xmx1g Main") == 1 * GiB);
	assert_true(runtimes_jvm_max_heap("java\t-Xmx1g\t-Xmx3g") == 3 * GiB);
	/* what the JVM would refuse to start with is not an option it took */
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx5q") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx5gb") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmxg") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx0x") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx-1g") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx+1g") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx1.5g") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g Main -Xmx1ff") == 4 * GiB);
	/* past 64 bits: the number itself, or the number times its unit */
	assert_true(runtimes_jvm_max_heap("java -Xmx18446744073709551615 Main") == UINT64_MAX);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g -Xmx18446744073709551616 Main") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g -Xmx0x10000000000000000 Main") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx16777215t Main") == 16777215ull * TiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g -Xmx16777216t Main") == 4 * GiB);
	assert_true(runtimes_jvm_max_heap("java -Xmx4g -Xmx17179869184g Main") == 4 * GiB);
	/* other options, and -Xmx inside another argument, are not it */
	assert_true(runtimes_jvm_max_heap("java -Xms4g -Xss1m -XX:MaxHeapSizeX=1g -XX:MaxHeapSize Main") == 0);
	assert_true(runtimes_jvm_max_heap("java -Dopts=-Xmx4g Main") == 0);
	assert_true(runtimes_jvm_max_heap("java Main") == 0);
	assert_true(runtimes_jvm_max_heap("") == 0);
	assert_true(runtimes_jvm_max_heap(NULL) == 0);
}

static void test_cmdline_needs_a_jvm(void **state)
{
	(void)state;
	static const char *const jvm[] = { "/usr/lib/jvm/lib/server/libjvm.so", NULL };
	struct runtimes rt = of_files(jvm, NULL);
	runtimes_note_cmdline(&rt, "/usr/bin/java -Xmx6g -jar app.jar");
	assert_true(rt.jvm_max_heap == 6 * GiB);
	/* a program that is not a JVM has no heap limit of the JVM's, whatever
	 * its arguments say */
	rt = of_files(NULL, "/usr/bin/python3.11");
	runtimes_note_cmdline(&rt, "python3 tool.py -Xmx6g");
	assert_true(rt.jvm_max_heap == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_known), cmocka_unit_test(test_linux_names),
		cmocka_unit_test(test_allocators),    cmocka_unit_test(test_windows_names),
		cmocka_unit_test(test_jvm_max_heap),  cmocka_unit_test(test_cmdline_needs_a_jvm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
