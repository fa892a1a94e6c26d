/* The classifier: every rule on shapes built for it, the shapes it must not
 * take, and the facts known about the captured processes. */
#include "testlib.h"

#include <dirent.h>

#include "classes.h"
#include "scan.h"
#include "census.h"
#include "util.h"

#define RW "rd wr mr mw me ac "
#define NONE "mr mw me "

/* Builds a text with put_region calls between BEGIN and END, classifies it. */
#define BEGIN                  \
	struct text _t;        \
	FILE *f = text_open(&_t);
#define END(hints)                                                         \
	char *_text = text_close(&_t);                                     \
	struct parsed p = classify_text(_text, (hints));                   \
	free(_text);                                                       \
	if (p.error)                                                       \
		fail_msg("%s", p.message);

static void test_kernel_and_paths(void **state)
{
	(void)state;
	{
		BEGIN
		put_region(f, 0x10000, 0x11000, "r-xp", "[vdso]", 4096, 0, "rd ex mr mw me de ");
		put_region(f, 0x12000, 0x13000, "r--p", "[vvar]", 0, 0, "rd mr pf io de dd ");
		put_region(f, 0x14000, 0x15000, "r--p", "[vvar_vclock]", 0, 0, NONE);
		put_region(f, 0x16000, 0x17000, "rw-s", "/SYSV0000162e (deleted)", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x18000, 0x19000, "rw-s", "/dev/shm/ring (deleted)", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x1a000, 0x1b000, "rw-s", "/memfd:wayland (deleted)", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x1c000, 0x1d000, "rw-s", NULL, 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x1e000, 0x1f000, "rw-s", "/dev/zero (deleted)", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x20000, 0x21000, "rw-s", "[anon_shmem:ring]", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x22000, 0x23000, "rw-s", "anon_inode:[io_uring]", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0x24000, 0x25000, "rw-p", "[heap]", 4096, 4096, RW);
		put_region(f, 0x26000, 0x27000, "rw-p", "[stack]", 4096, 4096, RW "gd ");
		put_region(f, 0x28000, 0x29000, "rw-p", "[stack:4301]", 4096, 4096, RW);
		put_region(f, 0x2a000, 0x2b000, "rw-p", "/dev/zero", 4096, 4096, RW);
		put_region(f, 0x2c000, 0x2e000, "rw-p", "/anon_hugepage (deleted)", 0, 0, RW "ht ");
		put_region(f, 0x2e000, 0x30000, "rw-s", "/anon_hugepage (deleted)", 0, 0, "rd wr sh mr mw me ms ht ");
		put_region(f, 0x30000, 0x31000, "rw-p", "[weird kernel thing]", 0, 0, RW);
		put_region(f, 0x32000, 0x33000, "rw-s", "/dev/dri/renderD128", 4096, 0, "rd wr sh mr mw me ms io pf ");
		put_region(f, 0x34000, 0x35000, "rw-s", "/dmabuf: (deleted)", 4096, 0, "rd wr sh mr mw me ms ");
		put_region(f, 0xffffffffff600000ull, 0xffffffffff601000ull, "--xp", "[vsyscall]", 0, 0, "ex ");
		END(NULL)
		assert_class(&p, 0x10000, "images", "kernel_image");
		assert_class(&p, 0x12000, "images", "kernel_image");
		assert_class(&p, 0x14000, "images", "kernel_image");
		assert_class(&p, 0x16000, "shared", "sysv_shm");
		assert_class(&p, 0x18000, "shared", "posix_shm");
		assert_class(&p, 0x1a000, "shared", "memfd");
		assert_class(&p, 0x1c000, "shared", "shared_anonymous");
		assert_class(&p, 0x1e000, "shared", "shared_anonymous");
		assert_class(&p, 0x20000, "shared", "shared_anonymous");
		assert_class(&p, 0x22000, "shared", "kernel_object");
		assert_class(&p, 0x24000, "malloc", "brk_heap");
		assert_class(&p, 0x26000, "stacks", "main_stack");
		assert_class(&p, 0x28000, "stacks", "main_stack");
		assert_class(&p, 0x2a000, "other", "device");
		assert_class(&p, 0x2c000, "other", "hugetlb_anonymous");
		assert_class(&p, 0x2e000, "shared", "shared_anonymous");
		assert_class(&p, 0x30000, "other", "unknown_path");
		assert_class(&p, 0x32000, "gpu_driver", "dri_device");
		assert_class(&p, 0x34000, "gpu_driver", "gpu_buffer");
		assert_class(&p, 0xffffffffff600000ull, "images", "kernel_image");
		parsed_free(&p);
	}
}

/* Files: every segment of a file mapped executable is the image; a .so is
 * an image even when only its data is mapped; the rest are data files. */
static void test_images_and_files(void **state)
{
	(void)state;
	{
		BEGIN
		put_region(f, 0x400000, 0x401000, "r--p", "/usr/bin/python3.11", 4096, 0, "rd mr mw me ");
		put_region(f, 0x401000, 0x402000, "r-xp", "/usr/bin/python3.11", 4096, 0, "rd ex mr mw me ");
		put_region(f, 0x402000, 0x403000, "rw-p", "/usr/bin/python3.11", 4096, 4096, RW);
		put_region(f, 0x403000, 0x405000, "rw-p", NULL, 8192, 8192, RW); /* its .bss */
		put_region(f, 0x500000, 0x501000, "r--p", "/opt/plugin/libdata.so.1 (deleted)", 4096, 0, "rd mr mw me ");
		put_region(f, 0x600000, 0x700000, "r--p", "/data/model.safetensors", 1 << 20, 0, "rd mr mw me ");
		put_region(f, 0x700000, 0x701000, "rw-p", "/data/scratch.bin", 4096, 4096, RW);
		put_region(f, 0x701000, 0x702000, "rw-p", NULL, 4096, 4096, RW); /* after a data file: not a .bss */
		put_region(f, 0x800000, 0x801000, "r-xp", "/tmp/jit-1234.dump", 4096, 0, "rd ex mr mw me ");
		END(NULL)
		assert_class(&p, 0x400000, "images", "image_segment");
		assert_class(&p, 0x401000, "images", "image_segment");
		assert_class(&p, 0x402000, "images", "image_segment");
		assert_class(&p, 0x403000, "images", "image_bss");
		assert_class(&p, 0x500000, "images", "image_library");
		assert_class(&p, 0x600000, "mapped_files", "mapped_file");
		assert_class(&p, 0x700000, "mapped_files", "mapped_file");
		assert_class(&p, 0x701000, "other", "anonymous");
		assert_class(&p, 0x800000, "images", "image_segment");
		parsed_free(&p);
	}
}

static void test_named(void **state)
{
	(void)state;
	{
		BEGIN
		put_region(f, 0x7f0000000000, 0x7f0000021000, "rw-p", "[anon: glibc: malloc arena]", 4096, 4096, RW);
		put_region(f, 0x7f0000021000, 0x7f0004000000, "---p", NULL, 0, 0, "mr mw me nr ");
		put_region(f, 0x7f0010000000, 0x7f0010001000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0010001000, 0x7f0010801000, "rw-p", "[anon: glibc: pthread stack: 77]", 8192, 8192, RW);
		put_region(f, 0x7f0020000000, 0x7f0020001000, "rw-p", "[anon: glibc: loader malloc]", 4096, 4096, RW);
		put_region(f, 0x7f0030000000, 0x7f0030001000, "rw-p", "[anon:scudo:secondary]", 4096, 4096, RW);
		put_region(f, 0x7f0040000000, 0x7f0040001000, "rw-p", "[anon:stack_and_tls:881]", 4096, 4096, RW);
		put_region(f, 0x7f0050000000, 0x7f0050001000, "rw-p", "[anon:dalvik-main space]", 4096, 4096, RW);
		put_region(f, 0x7f0060000000, 0x7f0060001000, "rw-p", "[anon: glibc: getrandom]", 4096, 4096, RW);
		put_region(f, 0x7f0070000000, 0x7f0070200000, "rw-p", "[anon:jemalloc_pg]", 4096, 4096, RW);
		END(NULL)
		assert_class(&p, 0x7f0000000000, "malloc", "named_malloc");
		assert_class(&p, 0x7f0000021000, "malloc", "reserve_tail");
		assert_class(&p, 0x7f0010000000, "stacks", "stack_guard_page");
		assert_class(&p, 0x7f0010001000, "stacks", "named_stack");
		assert_class(&p, 0x7f0020000000, "malloc", "named_malloc");
		assert_class(&p, 0x7f0030000000, "malloc", "named_malloc");
		assert_class(&p, 0x7f0040000000, "stacks", "named_stack");
		assert_class(&p, 0x7f0050000000, "named", "named");
		assert_class(&p, 0x7f0060000000, "named", "named");
		assert_class(&p, 0x7f0070000000, "malloc", "named_malloc");
		parsed_free(&p);
	}
}

static void test_glibc_arena(void **state)
{
	(void)state;
	{
		BEGIN
		/* used part then reserve, 64 MiB in all */
		put_region(f, 0x7f0000000000, 0x7f0000021000, "rw-p", NULL, 135168, 135168, "rd wr mr mw me nr ");
		put_region(f, 0x7f0000021000, 0x7f0004000000, "---p", NULL, 0, 0, "mr mw me nr ");
		/* the used part split by flags (THP advice) */
		put_region(f, 0x7f0004000000, 0x7f0004200000, "rw-p", NULL, 4096, 4096, "rd wr mr mw me nr hg ");
		put_region(f, 0x7f0004200000, 0x7f0004400000, "rw-p", NULL, 4096, 4096, "rd wr mr mw me nr ");
		put_region(f, 0x7f0004400000, 0x7f0008000000, "---p", NULL, 0, 0, "mr mw me nr ");
		/* grown to the whole 64 MiB: MAP_NORESERVE tells it */
		put_region(f, 0x7f0008000000, 0x7f000c000000, "rw-p", NULL, 4096, 4096, "rd wr mr mw me nr ");
		/* 64 MiB aligned, but 64 MiB without reserve nor "nr": an ordinary mapping */
		put_region(f, 0x7f0010000000, 0x7f0014000000, "rw-p", NULL, 4096, 4096, RW);
		/* not 64 MiB in all */
		put_region(f, 0x7f0018000000, 0x7f0018021000, "rw-p", NULL, 4096, 4096, RW);
		put_region(f, 0x7f0018021000, 0x7f001a000000, "---p", NULL, 0, 0, "mr mw me nr ");
		/* not aligned */
		put_region(f, 0x7f0020100000, 0x7f0020121000, "rw-p", NULL, 4096, 4096, RW);
		put_region(f, 0x7f0020121000, 0x7f0024100000, "---p", NULL, 0, 0, "mr mw me nr ");
		END(NULL)
		assert_class(&p, 0x7f0000000000, "malloc", "glibc_arena");
		assert_class(&p, 0x7f0000021000, "malloc", "reserve_tail");
		assert_class(&p, 0x7f0004000000, "malloc", "glibc_arena");
		assert_class(&p, 0x7f0004200000, "malloc", "glibc_arena");
		assert_class(&p, 0x7f0004400000, "malloc", "reserve_tail");
		assert_class(&p, 0x7f0008000000, "malloc", "glibc_arena");
		assert_class(&p, 0x7f0010000000, "other", "anonymous");
		assert_class(&p, 0x7f0018000000, "other", "anonymous");
		assert_class(&p, 0x7f0018021000, "other", "reserve_tail");
		assert_class(&p, 0x7f0020100000, "other", "anonymous");
		parsed_free(&p);
	}
}

static void test_stacks(void **state)
{
	(void)state;
	uint64_t sps[] = { 0x7f0000005000, 0x7f0000807f00 };
	struct classify_hints e = { .stack_pointers = sps, .n_stack_pointers = 2 };
	{
		BEGIN
		/* a thread's stack pointer is in it */
		put_region(f, 0x7f0000000000, 0x7f0000001000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0000001000, 0x7f0000801000, "rw-p", NULL, 8192, 8192, RW "nh ");
		/* a stack pointer in a region without a guard */
		put_region(f, 0x7f0000801000, 0x7f0000901000, "rw-p", NULL, 8192, 8192, "rd wr mr mw me nh ");
		/* guard shape, no stack pointer (a cached stack, a running thread) */
		put_region(f, 0x7f0010000000, 0x7f0010004000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0010004000, 0x7f0010100000, "rw-p", NULL, 8192, 8192, RW);
		/* too large a "guard": a reserve */
		put_region(f, 0x7f0020000000, 0x7f0020080000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0020080000, 0x7f0020081000, "rw-p", NULL, 4096, 4096, RW);
		/* an arena's MAP_NORESERVE reserve below writable memory: no guard */
		put_region(f, 0x7f0030000000, 0x7f0030001000, "---p", NULL, 0, 0, "mr mw me nr ");
		put_region(f, 0x7f0030001000, 0x7f0030100000, "rw-p", NULL, 4096, 4096, RW);
		/* a reservation above a stack does not take the stack's class */
		put_region(f, 0x7f0040000000, 0x7f0040001000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0040001000, 0x7f0040100000, "rw-p", NULL, 4096, 4096, RW);
		put_region(f, 0x7f0040100000, 0x7f0040400000, "---p", NULL, 0, 0, NONE);
		END(&e)
		assert_class(&p, 0x7f0000000000, "stacks", "stack_guard_page");
		assert_class(&p, 0x7f0000001000, "stacks", "stack_pointer");
		assert_class(&p, 0x7f0000801000, "stacks", "stack_pointer");
		assert_class(&p, 0x7f0010000000, "stacks", "stack_guard_page");
		assert_class(&p, 0x7f0010004000, "stacks", "stack_shape");
		assert_class(&p, 0x7f0020000000, "other", "reservation");
		assert_class(&p, 0x7f0020080000, "other", "anonymous");
		assert_class(&p, 0x7f0030000000, "other", "reservation");
		assert_class(&p, 0x7f0030001000, "other", "anonymous");
		assert_class(&p, 0x7f0040001000, "stacks", "stack_shape");
		assert_class(&p, 0x7f0040100000, "other", "reservation");
		parsed_free(&p);
	}

	/* without stack pointers the middle region is just memory */
	{
		BEGIN
		put_region(f, 0x7f0000801000, 0x7f0000901000, "rw-p", NULL, 8192, 8192, RW);
		END(NULL)
		assert_class(&p, 0x7f0000801000, "other", "anonymous");
		parsed_free(&p);
	}
}

static void test_jit_and_reserving_allocator(void **state)
{
	(void)state;
	{
		BEGIN
		/* 64 GiB: used parts and reserves */
		put_region(f, 0x100000000000, 0x100000200000, "rw-p", NULL, 2 * MiB, 2 * MiB, RW);
		put_region(f, 0x100000200000, 0x100800000000, "---p", NULL, 0, 0, "mr mw me nr ");
		put_region(f, 0x100800000000, 0x100800100000, "rw-p", NULL, 1 * MiB, 1 * MiB, RW);
		put_region(f, 0x100800100000, 0x101000000000, "---p", NULL, 0, 0, "mr mw me nr ");
		/* 64 GiB all writable (no reserve): not this allocator */
		put_region(f, 0x200000000000, 0x201000000000, "rw-p", NULL, 1 * MiB, 1 * MiB, RW);
		/* 64 GiB + a page: not a multiple */
		put_region(f, 0x300000000000, 0x300000001000, "rw-p", NULL, 4096, 4096, RW);
		put_region(f, 0x300000001000, 0x301000001000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0000000000, 0x7f0000100000, "rwxp", NULL, 8192, 8192, "rd wr ex mr mw me ac ");
		put_region(f, 0x7f0000100000, 0x7f0008000000, "---p", NULL, 0, 0, NONE);
		END(NULL)
		assert_class(&p, 0x7f0000000000, "jit", "jit");
		assert_class(&p, 0x7f0000100000, "jit", "reserve_tail");
		assert_class(&p, 0x100000000000, "mmgp_ram", "reserving_allocator");
		assert_class(&p, 0x100000200000, "mmgp_ram", "reserving_allocator");
		assert_class(&p, 0x100800000000, "mmgp_ram", "reserving_allocator");
		assert_class(&p, 0x100800100000, "mmgp_ram", "reserving_allocator");
		assert_class(&p, 0x200000000000, "other", "anonymous");
		assert_class(&p, 0x300000000000, "other", "anonymous");
		parsed_free(&p);
	}
}

static void test_runtimes(void **state)
{
	(void)state;
	/* JVM: anonymous memory below 32 GiB is the compressed-oops heap */
	{
		{
			BEGIN
			put_region(f, 0xe0000000, 0xf0000000, "rw-p", NULL, 64 * MiB, 64 * MiB, RW);
			put_region(f, 0xf0000000, 0x100000000, "---p", NULL, 0, 0, NONE);
			put_region(f, 0x7f0000000000, 0x7f0001000000, "r-xp", "/usr/lib/jvm/java-17/lib/server/libjvm.so",
				   4096, 0, "rd ex mr mw me ");
			put_region(f, 0x7f1000000000, 0x7f1100000000, "rw-p", NULL, 4096, 4096, RW);
			END(NULL)
			assert_class(&p, 0xe0000000, "runtime_heap", "jvm_heap");
			assert_class(&p, 0xf0000000, "runtime_heap", "jvm_heap");
			assert_class(&p, 0x7f1000000000, "other", "anonymous");
			parsed_free(&p);
		}
	}
	/* JVM with a 40 GiB heap (no compressed oops): found by -Xmx */
	{
		struct classify_hints e = { .cmdline = "java -Xms1g -Xmx40g -jar app.jar" };
		{
			BEGIN
			put_region(f, 0x7e0000000000, 0x7e0100000000, "rw-p", NULL, 1 * GiB, 1 * GiB, RW);
			put_region(f, 0x7e0100000000, 0x7e0a00000000, "---p", NULL, 0, 0, NONE);
			put_region(f, 0x7f0000000000, 0x7f0001000000, "r-xp", "/usr/lib/jvm/java-17/lib/server/libjvm.so",
				   4096, 0, "rd ex mr mw me ");
			put_region(f, 0x7f1000000000, 0x7f1001000000, "rw-p", NULL, 4096, 4096, RW);
			END(&e)
			assert_class(&p, 0x7e0000000000, "runtime_heap", "jvm_heap");
			assert_class(&p, 0x7e0100000000, "runtime_heap", "jvm_heap");
			assert_class(&p, 0x7f1000000000, "other", "anonymous");
			parsed_free(&p);
		}
		/* the same heap with another -Xmx is not recognised */
		struct classify_hints e2 = { .cmdline = "java -XX:MaxHeapSize=8g -jar app.jar" };
		{
			BEGIN
			put_region(f, 0x7e0000000000, 0x7e0a00000000, "rw-p", NULL, 1 * GiB, 1 * GiB, RW);
			put_region(f, 0x7f0000000000, 0x7f0001000000, "r-xp", "/usr/lib/jvm/java-17/lib/server/libjvm.so",
				   4096, 0, "rd ex mr mw me ");
			END(&e2)
			assert_class(&p, 0x7e0000000000, "other", "anonymous");
			parsed_free(&p);
		}
	}
	/* without libjvm, low anonymous memory is nothing special */
	{
		{
			BEGIN
			put_region(f, 0xe0000000, 0xf0000000, "rw-p", NULL, 64 * MiB, 64 * MiB, RW);
			END(NULL)
			assert_class(&p, 0xe0000000, "other", "anonymous");
			parsed_free(&p);
		}
	}
	/* Go: the run of arenas from the first hint, and a later hint */
	{
		{
			BEGIN
			put_region(f, 0xc000000000, 0xc004000000, "rw-p", NULL, 40 * MiB, 40 * MiB, RW);
			put_region(f, 0xc004000000, 0xc008000000, "---p", NULL, 0, 0, NONE);
			put_region(f, 0xc100000000, 0xc104000000, "rw-p", NULL, 4096, 4096, RW); /* not a hint */
			put_region(f, 0x1c000000000, 0x1c004000000, "rw-p", NULL, 4096, 4096, RW);
			END(NULL)
			assert_class(&p, 0xc000000000, "runtime_heap", "go_arena");
			assert_class(&p, 0xc004000000, "runtime_heap", "go_arena");
			assert_class(&p, 0x1c000000000, "runtime_heap", "go_arena");
			assert_class(&p, 0xc100000000, "other", "anonymous");
			parsed_free(&p);
		}
	}
	/* V8: 256 KiB-aligned pages at random addresses below 64 TiB */
	{
		struct classify_hints e = { .exe = "/usr/bin/node" };
		{
			BEGIN
			put_region(f, 0x3699140000, 0x3699180000, "rw-p", NULL, 256 * KiB, 256 * KiB, RW);
			put_region(f, 0x3699181000, 0x3699191000, "rw-p", NULL, 4096, 4096, RW); /* not aligned */
			put_region(f, 0x48335800000, 0x48335840000, "---p", NULL, 0, 0, NONE);
			put_region(f, 0x248bb8a80000, 0x248bb8ac2000, "rw-p", NULL, 264 * KiB, 264 * KiB, RW);
			put_region(f, 0x7f0000000000, 0x7f0000040000, "rw-p", NULL, 4096, 4096, RW); /* mmap's own area */
			END(&e)
			assert_class(&p, 0x3699140000, "runtime_heap", "v8_page");
			assert_class(&p, 0x48335800000, "runtime_heap", "v8_page");
			assert_class(&p, 0x248bb8a80000, "runtime_heap", "v8_page");
			assert_class(&p, 0x3699181000, "other", "anonymous");
			assert_class(&p, 0x7f0000000000, "other", "anonymous");
			parsed_free(&p);
		}
		/* the same shapes in a program that is not V8 */
		struct classify_hints c = { .exe = "/usr/bin/nodeish" };
		{
			BEGIN
			put_region(f, 0x3699140000, 0x3699180000, "rw-p", NULL, 256 * KiB, 256 * KiB, RW);
			END(&c)
			assert_class(&p, 0x3699140000, "other", "anonymous");
			parsed_free(&p);
		}
	}
}

/* jemalloc maps 2 MiB at a time or more: in a process that maps
 * libjemalloc, an anonymous region of 2 MiB or more starting or ending on
 * a 2 MiB boundary is its memory by shape; a thread stack stays a stack,
 * smaller or unaligned memory stays anonymous, and without libjemalloc
 * the same shapes are nobody's. */
static void test_jemalloc_shape(void **state)
{
	(void)state;
	for (int with = 0; with < 2; with++) {
		BEGIN
		/* extents merged by the kernel: the end on a boundary */
		put_region(f, 0x7f0000080000, 0x7f0000a00000, "rw-p", NULL, 4 * MiB, 4 * MiB, RW);
		/* a base block: 2 MiB-aligned both ends */
		put_region(f, 0x7f0000e00000, 0x7f0001600000, "rw-p", NULL, 440 * KiB, 440 * KiB, RW);
		/* a thread stack: its guard below, 2 MiB-aligned too */
		put_region(f, 0x7f00017ff000, 0x7f0001800000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0001800000, 0x7f0002000000, "rw-p", NULL, 12 * KiB, 12 * KiB, RW);
		/* neither end on a boundary, and less than 2 MiB */
		put_region(f, 0x7f0002081000, 0x7f0002481000, "rw-p", NULL, 4 * MiB, 4 * MiB, RW);
		put_region(f, 0x7f0002600000, 0x7f0002700000, "rw-p", NULL, 1 * MiB, 1 * MiB, RW);
		if (with)
			put_region(f, 0x7f0100000000, 0x7f0100009000, "r--p", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
				   0x9000, 0, "rd mr mw me ");
		END(NULL)
		if (with) {
			assert_class(&p, 0x7f0000080000, "malloc", "jemalloc_shape");
			assert_class(&p, 0x7f0000e00000, "malloc", "jemalloc_shape");
		} else {
			assert_class(&p, 0x7f0000080000, "other", "anonymous");
			assert_class(&p, 0x7f0000e00000, "other", "anonymous");
		}
		assert_class(&p, 0x7f0001800000, "stacks", "stack_shape");
		assert_class(&p, 0x7f0002081000, "other", "anonymous");
		assert_class(&p, 0x7f0002600000, "other", "anonymous");
		parsed_free(&p);
	}
}

/* PartitionAlloc (Chromium): a super page's first partition page is
 * inaccessible but for its metadata page; slot spans follow, split where
 * parts are decommitted; a direct map has its data 16 KiB past a 2 MiB
 * boundary.  Thread stacks in the same process stay stacks. */
static void test_partition_alloc(void **state)
{
	(void)state;
	struct classify_hints chromium = { .exe = "/usr/lib/chromium/chromium" };
	{
		BEGIN
		put_region(f, 0x100000000000, 0x100000002000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x100000002000, 0x100000003000, "rw-p", NULL, 4096, 4096, RW);
		put_region(f, 0x100000003000, 0x100000004000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x100000004000, 0x100000100000, "rw-p", NULL, 64 * KiB, 64 * KiB, RW);
		put_region(f, 0x100000100000, 0x100000110000, "---p", NULL, 0, 0, NONE); /* decommitted */
		put_region(f, 0x100000110000, 0x100000180000, "rw-p", NULL, 32 * KiB, 32 * KiB, RW);
		put_region(f, 0x100000180000, 0x100000202000, "---p", NULL, 0, 0, NONE);
		/* a direct map of 8 MiB, its metadata elsewhere */
		put_region(f, 0x100000202000, 0x100000404000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x100000404000, 0x100000c04000, "rw-p", NULL, 8 * MiB, 8 * MiB, RW);
		put_region(f, 0x100000c04000, 0x100001000000, "---p", NULL, 0, 0, NONE);
		/* a thread stack that happens to start 16 KiB past 2 MiB */
		put_region(f, 0x7f0010003000, 0x7f0010004000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x7f0010004000, 0x7f0010804000, "rw-p", NULL, 8192, 8192, RW);
		END(&chromium)
		assert_class(&p, 0x100000002000, "malloc", "partition_alloc");
		assert_class(&p, 0x100000003000, "malloc", "reserve_tail");
		assert_class(&p, 0x100000004000, "malloc", "partition_alloc");
		assert_class(&p, 0x100000110000, "malloc", "partition_alloc");
		assert_class(&p, 0x100000404000, "malloc", "partition_alloc");
		assert_class(&p, 0x7f0010004000, "stacks", "stack_shape");
		parsed_free(&p);
	}
	{
		/* without a super page the process has no PartitionAlloc: the
		 * same direct-map shape is plain anonymous memory */
		BEGIN
		put_region(f, 0x100000202000, 0x100000404000, "---p", NULL, 0, 0, NONE);
		put_region(f, 0x100000404000, 0x100000c04000, "rw-p", NULL, 8 * MiB, 8 * MiB, RW);
		END(&chromium)
		assert_class(&p, 0x100000404000, "other", "anonymous");
		parsed_free(&p);
	}
}

static void test_python_and_openblas(void **state)
{
	(void)state;
	struct classify_hints py311 = { .exe = "/usr/bin/python3.11" };
	struct classify_hints plain = { .exe = "/usr/bin/server" };
	const char *const blas = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so";
	{
		{
			BEGIN
			put_region(f, 0x7f0000000000, 0x7f0000300000, "rw-p", NULL, 3 * MiB, 3 * MiB, RW);
			put_region(f, 0x7f0010000000, 0x7f0010301000, "rw-p", NULL, 3 * MiB, 3 * MiB, RW);
			put_region(f, 0x7f0020000000, 0x7f0020040000, "rw-p", NULL, 256 * KiB, 256 * KiB, RW);
			put_region(f, 0x7f0030000000, 0x7f0032000000, "rw-p", NULL, 1 * MiB, 1 * MiB, RW);
			put_region(f, 0x7f0040000000, 0x7f0042000000, "rw-p", NULL, 32 * MiB, 32 * MiB, RW);
			put_region(f, 0x7f0050000000, 0x7f0050001000, "r-xp", blas, 4096, 0, "rd ex mr mw me ");
			END(&py311)
			assert_class(&p, 0x7f0000000000, "python", "pymalloc_arenas");
			assert_class(&p, 0x7f0010000000, "other", "anonymous");
			assert_class(&p, 0x7f0020000000, "other", "anonymous"); /* 256 KiB arenas: only before 3.10 */
			assert_class(&p, 0x7f0030000000, "openblas", "openblas_buffer");
			assert_class(&p, 0x7f0040000000, "python", "pymalloc_arenas"); /* touched: not a spare buffer */
			parsed_free(&p);
		}
	}
	{
		struct classify_hints py39 = { .exe = "/usr/local/bin/python3" };
		{
			BEGIN
			put_region(f, 0x400000, 0x401000, "r-xp", "/usr/lib/libpython3.9.so.1.0", 4096, 0, "rd ex mr mw me ");
			put_region(f, 0x7f0020000000, 0x7f0020040000, "rw-p", NULL, 256 * KiB, 256 * KiB, RW);
			END(&py39)
			assert_class(&p, 0x7f0020000000, "python", "pymalloc_arenas");
			parsed_free(&p);
		}
	}
	{
		{
			BEGIN
			put_region(f, 0x7f0000000000, 0x7f0000300000, "rw-p", NULL, 3 * MiB, 3 * MiB, RW);
			put_region(f, 0x7f0030000000, 0x7f0032000000, "rw-p", NULL, 1 * MiB, 1 * MiB, RW);
			END(&plain)
			assert_class(&p, 0x7f0000000000, "other", "anonymous");
			assert_class(&p, 0x7f0030000000, "other", "anonymous");
			parsed_free(&p);
		}
	}
}

static void test_cuda(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp(fixture("smaps/synthetic-cuda-pytorch.smaps"), &len);
	struct parsed fx = parse_text_ex(text, len, true, &(struct classify_hints){ .exe = "/usr/bin/python3.10" });
	struct parsed *fp = &fx;
	free(text);
	assert_int_equal(fx.error, 0);
	assert_class(fp, 0x200000000, "gpu_driver", "cuda_reservation");
	assert_class(fp, 0x200400000, "gpu_driver", "nvidia_device");
	assert_class(fp, 0x200600000, "pinned_cuda", "nvidiactl_pinned");
	assert_class(fp, 0x200a00000, "gpu_driver", "nvidia_device"); /* no resident pages */
	assert_class(fp, 0x200a04000, "gpu_driver", "cuda_reservation");
	assert_class(fp, 0x10000000000, "gpu_driver", "cuda_reservation");
	assert_class(fp, 0x7f2000000000, "cuda_uvm", "nvidia_uvm");
	assert_class(fp, 0x7f3000000000, "openblas", "openblas_buffer");
	assert_class(fp, 0x7f3100000000, "python", "pymalloc_arenas");
	assert_class(fp, 0x7f3200000000, "other", "anonymous");
	assert_class(fp, 0x714000, "images", "image_bss");
	parsed_free(fp);

	/* the same low reservation without the NVIDIA driver mapped */
	{
		BEGIN
		put_region(f, 0x200000000, 0x300000000, "---p", NULL, 0, 0, NONE);
		END(NULL)
		assert_class(&p, 0x200000000, "other", "reservation");
		parsed_free(&p);
	}
	/* managed memory only where the offset is the address; a shared
	 * nvidiactl mapping without pages is the driver's, and one mapped
	 * private is no pinned memory */
	{
		BEGIN
		put_region(f, 0x7f0000000000, 0x7f0000200000, "rw-s", "/dev/nvidia-uvm", 2 * MiB, 0, "rd wr sh mr mw me ms de mm ");
		put_region(f, 0x7f0000200000, 0x7f0000400000, "rw-s", "/dev/nvidiactl", 0, 0, "rd wr sh mr mw me ms de dd mm ");
		put_region(f, 0x7f0000400000, 0x7f0000600000, "r--p", "/dev/nvidiactl", 4096, 0, "rd mr mw me ");
		END(NULL)
		assert_class(&p, 0x7f0000000000, "gpu_driver", "nvidia_device"); /* offset 0, not the address */
		assert_class(&p, 0x7f0000200000, "gpu_driver", "nvidia_device");
		assert_class(&p, 0x7f0000400000, "gpu_driver", "nvidia_device");
		parsed_free(&p);
	}
	/* /dev/nvidia-uvm-tools is not managed memory */
	{
		BEGIN
		put_region(f, 0x7f0000000000, 0x7f0000001000, "rw-s", "/dev/nvidia-uvm-tools", 0, 0, "rd wr sh mr mw me ms ");
		END(NULL)
		assert_class(&p, 0x7f0000000000, "gpu_driver", "nvidia_device");
		parsed_free(&p);
	}
}

/* Facts about the captured processes (tests/data/README.md). */
static struct census *census_of(const char *name, struct scan_options *o)
{
	struct census *c = NULL;
	struct error err;
	char path[4096];
	snprintf(path, sizeof(path), "%s", fixture(name));
	if (scan_smaps_file(path, NULL, o, &c, &err) < 0)
		fail_msg("%s: %s", name, err.message);
	return c;
}

static const struct census_region *find(const struct census *c, uint64_t start)
{
	for (size_t i = 0; i < c->n_regions; i++)
		if (c->regions[i].start == start)
			return &c->regions[i];
	fail_msg("no region at 0x%llx", (unsigned long long)start);
	return NULL;
}

#define assert_census_class(c, start, want_class, want_rule)                                             \
	do {                                                                                             \
		const struct census_region *_r = find((c), (start));                                     \
		if (strcmp(class_key(_r->cls), (want_class)) != 0 || strcmp(_r->rule, (want_rule)) != 0)  \
			fail_msg("0x%llx: %s %s, expected %s %s", (unsigned long long)(start),            \
				 class_key(_r->cls), _r->rule, (want_class), (want_rule));                \
	} while (0)

static void test_captured_processes(void **state)
{
	(void)state;
	struct scan_options o = { .keep_regions = true };
	struct census *c;

	c = census_of("smaps/java17-g1.smaps", &o); /* java -Xmx512m, 4 sleeping threads */
	assert_census_class(c, 0xe0000000, "runtime_heap", "jvm_heap");
	assert_census_class(c, 0xf7a00000, "runtime_heap", "jvm_heap");
	assert_census_class(c, 0x7fcad8000000, "malloc", "glibc_arena");
	assert_census_class(c, 0x7fcad8021000, "malloc", "reserve_tail");
	assert_census_class(c, 0x7fcb61400000, "jit", "jit");
	assert_census_class(c, 0x7fcb7ca4f000, "stacks", "stack_guard_page");
	assert_census_class(c, 0x7fcb7ca53000, "stacks", "stack_shape");
	assert_census_class(c, 0x5648b8bc6000, "malloc", "brk_heap");
	/* metaspace and G1's tables, inside reservations of their own */
	assert_census_class(c, 0x7fcaff000000, "runtime_heap", "jvm_reserved");
	assert_census_class(c, 0x7fcb52000000, "runtime_heap", "jvm_reserved");
	assert_true(c->classes[CLASS_RUNTIME_HEAP].private >= 64 * MiB); /* 64 x 1 MiB arrays */
	assert_int_equal(c->classes[CLASS_STACKS].count, 45);
	census_free(c);

	/* a jemalloc program's capture without its memory image: its
	 * extents and base blocks by their shape, its threads' stacks as
	 * stacks, in use and free unknown (nothing was read) */
	c = census_of("memimage/c-jemalloc-heap.smaps", &o);
	assert_census_class(c, 0x7f9580880000, "malloc", "jemalloc_shape");
	assert_census_class(c, 0x7f9581280000, "malloc", "jemalloc_shape");
	assert_census_class(c, 0x7f9582e00000, "malloc", "jemalloc_shape");
	assert_census_class(c, 0x7f9581dff000, "stacks", "stack_shape");
	assert_census_class(c, 0x7f9582600000, "stacks", "stack_shape");
	assert_true(c->classes[CLASS_MALLOC].private * 100 >= c->totals.private * 95);
	assert_true(c->unknown_classes[CLASS_MALLOC] & CENSUS_COUNTER_BIT(in_use));
	assert_null(c->how[CLASS_MALLOC]);
	census_free(c);

	c = census_of("smaps/python3-threads.smaps", &o); /* 300,000 strings, 3 sleeping threads */
	assert_census_class(c, 0x7f7e07a62000, "python", "pymalloc_arenas");
	assert_census_class(c, 0x7f7e044e6000, "stacks", "stack_guard_page");
	assert_census_class(c, 0x7f7e044e7000, "stacks", "stack_shape");
	assert_census_class(c, 0x7f7df8000000, "malloc", "glibc_arena");
	assert_census_class(c, 0xa85000, "images", "image_bss");
	assert_census_class(c, 0x2cd8a000, "malloc", "brk_heap");
	assert_true(c->classes[CLASS_PYTHON].private > 25 * MiB);
	census_free(c);

	/* numpy on Debian's OpenBLAS (pthread build, 2 cores): a 1500x1500
	 * matrix product, then 200,000 objects of 1 KiB (above pymalloc's
	 * 512-byte limit, so in the brk heap) */
	c = census_of("smaps/python3-numpy-openblas.smaps", &o);
	assert_census_class(c, 0x7fd9eec00000, "openblas", "openblas_buffer");
	assert_census_class(c, 0x7fd9fa200000, "openblas", "openblas_buffer");
	assert_int_equal(c->classes[CLASS_OPENBLAS].count, 2); /* one 128 MiB buffer per core */
	assert_census_class(c, 0x7fd9f9f00000, "python", "pymalloc_arenas");
	assert_census_class(c, 0x7fd9f6de5000, "other", "anonymous"); /* an 18 MB array: malloc's mmap */
	assert_census_class(c, 0x251f0000, "malloc", "brk_heap");
	assert_true(c->classes[CLASS_MALLOC].private > 200 * MiB);
	census_free(c);

	/* a Chromium renderer holding 300,000 objects and a 64 MiB ArrayBuffer:
	 * PartitionAlloc's super pages (metadata page, guard, slot span) and
	 * direct maps are its malloc, not dozens of thread stacks */
	c = census_of("smaps/chromium-renderer.smaps", &o);
	assert_census_class(c, 0x2e8400002000, "malloc", "partition_alloc");
	assert_census_class(c, 0x2e8400003000, "malloc", "reserve_tail");
	assert_census_class(c, 0x2e8400004000, "malloc", "partition_alloc");
	assert_census_class(c, 0x70400004000, "malloc", "partition_alloc"); /* the ArrayBuffer */
	assert_census_class(c, 0x70000040000, "runtime_heap", "v8_page");
	assert_census_class(c, 0x7ff65c716000, "stacks", "stack_shape");
	assert_census_class(c, 0x1678c89d9000, "other", "anonymous"); /* one page between guards: no stack */
	assert_int_equal(c->classes[CLASS_STACKS].count, 29);     /* [stack], 14 stacks and their guards */
	assert_true(c->classes[CLASS_MALLOC].private > 64 * MiB);
	census_free(c);

	c = census_of("smaps/node20.smaps", &o);
	assert_census_class(c, 0x3f6b38c0000, "runtime_heap", "v8_page");
	assert_census_class(c, 0x48335800000, "runtime_heap", "v8_page");
	assert_census_class(c, 0x7f1928003000, "jit", "jit");
	assert_census_class(c, 0x565d000, "images", "image_bss");
	assert_int_equal(c->classes[CLASS_STACKS].count, 13);
	census_free(c);

	c = census_of("smaps/go-heap.smaps", &o); /* 40 x 1 MiB slices */
	assert_census_class(c, 0xc000000000, "runtime_heap", "go_arena");
	assert_census_class(c, 0xc002c00000, "runtime_heap", "go_arena");
	assert_true(c->classes[CLASS_RUNTIME_HEAP].private >= 40 * MiB);
	assert_int_equal(c->classes[CLASS_STACKS].count, 1); /* Go's goroutine stacks live in its heap */
	census_free(c);

	c = census_of("smaps/c-shapes.smaps", &o);
	assert_census_class(c, 0x100000000000, "mmgp_ram", "reserving_allocator");
	assert_census_class(c, 0x7fdad0000000, "malloc", "glibc_arena");
	assert_census_class(c, 0x7fdadf700000, "jit", "jit");
	assert_census_class(c, 0x7fdae2e00000, "shared", "posix_shm");
	assert_census_class(c, 0x7fdae3400000, "mapped_files", "mapped_file");
	census_free(c);
}

/* Sums of one class's counters over the regions a census kept. */
static void class_sum(const struct census *c, enum class_id k, uint64_t *ret_private, uint64_t *ret_resident)
{
	*ret_private = *ret_resident = 0;
	for (size_t i = 0; i < c->n_regions; i++)
		if (c->regions[i].cls == k) {
			*ret_private += c->regions[i].private;
			*ret_resident += c->regions[i].resident;
		}
}

/* CUDA processes as public maps show them (tests/data/make-synthetic.py):
 * every mapping of the driver in its class, and the classes adding up. */
static void test_cuda_layouts(void **state)
{
	(void)state;
	struct scan_options o = { .keep_regions = true };
	struct census_totals sum;
	uint64_t private, resident;
	struct census *c;

	c = census_of("smaps/synthetic-cuda-recent-driver.smaps", &o);
	assert_census_class(c, 0x200000000, "gpu_driver", "cuda_reservation");
	assert_census_class(c, 0x200400000, "gpu_driver", "nvidia_device");    /* BAR: io pf, no pages */
	assert_census_class(c, 0x200600000, "pinned_cuda", "nvidiactl_pinned"); /* the driver's 56 MiB block */
	assert_census_class(c, 0x203e00000, "gpu_driver", "cuda_reservation");
	assert_census_class(c, 0x205c00000, "pinned_cuda", "nvidiactl_pinned"); /* 2 MiB chunks */
	assert_census_class(c, 0x205e00000, "pinned_cuda", "nvidiactl_pinned");
	assert_census_class(c, 0x206000000, "gpu_driver", "nvidia_device");
	assert_census_class(c, 0x206200000, "gpu_driver", "nvidia_device");    /* peer I/O: no pages */
	assert_census_class(c, 0x206210000, "gpu_driver", "cuda_reservation");
	assert_census_class(c, 0x7ea03a000000, "cuda_uvm", "nvidia_uvm");
	assert_census_class(c, 0x7ea03a200000, "cuda_uvm", "nvidia_uvm");
	assert_census_class(c, 0x7ea04a200000, "cuda_uvm", "nvidia_uvm");       /* on the GPU: no host pages */
	assert_census_class(c, 0x7ea0b0000000, "pinned_cuda", "nvidiactl_pinned"); /* cuMemHostAlloc */
	assert_census_class(c, 0x7eb000000000, "gpu_driver", "nvidia_device");  /* moved: offset is not the address */
	/* a reservation of the unified address space outside the driver's
	 * window: address space only, a reservation like any other */
	assert_census_class(c, 0x7ea000000000, "other", "reservation");
	assert_census_class(c, 0x7f1000000000, "python", "pymalloc_arenas");
	assert_census_class(c, 0x937000, "images", "image_bss");
	assert_census_class(c, 0x7f3400000000, "images", "image_segment");

	/* pinned and managed pages are resident, never private (not Anonymous) */
	assert_true(c->classes[CLASS_PINNED_CUDA].resident == (56 + 2 + 2 + 256) * MiB);
	assert_true(c->classes[CLASS_PINNED_CUDA].private == 0);
	assert_int_equal(c->classes[CLASS_PINNED_CUDA].count, 4);
	assert_true(c->classes[CLASS_CUDA_UVM].resident == (2 + 96) * MiB);
	assert_true(c->classes[CLASS_CUDA_UVM].size == (2 + 256 + 128) * MiB);
	assert_true(c->classes[CLASS_GPU_DRIVER].resident == 0);
	assert_int_equal(c->classes[CLASS_GPU_DRIVER].count, 7);
	/* conservation: the classes add up to the totals, and each class to
	 * its regions */
	census_class_sum(c, &sum);
	assert_true(sum.private == c->totals.private && sum.resident == c->totals.resident &&
		    sum.size == c->totals.size && sum.count == c->totals.count);
	for (int k = 0; k < _CLASS_MAX; k++) {
		class_sum(c, (enum class_id)k, &private, &resident);
		assert_true(private == c->classes[k].private && resident == c->classes[k].resident);
	}
	census_free(c);

	/* an old driver: rwxs nvidiactl mappings at physical offsets, mapped by
	 * page frame; executable, yet no image, and no pages to count */
	c = census_of("smaps/synthetic-cuda-old-driver.smaps", &o);
	assert_census_class(c, 0x200000000, "gpu_driver", "nvidia_device");
	assert_census_class(c, 0x200100000, "gpu_driver", "nvidia_device");
	assert_census_class(c, 0x200104000, "gpu_driver", "cuda_reservation");
	assert_census_class(c, 0x200120000, "gpu_driver", "nvidia_device");
	assert_int_equal(c->classes[CLASS_GPU_DRIVER].count, 6);
	assert_int_equal(c->classes[CLASS_PINNED_CUDA].count, 0);
	assert_true(c->classes[CLASS_IMAGES].count == 4); /* the program and libc only */
	census_class_sum(c, &sum);
	assert_true(sum.private == c->totals.private && sum.resident == c->totals.resident);
	census_free(c);
}

/* Every region of every fixture gets exactly one known class, and the rule
 * table is consistent. */
static void test_rule_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < classify_rule_count(); i++) {
		const struct classify_rule_info *r = classify_rule(i);
		if (!r->key || !r->why)
			fail_msg("rule %zu has no key or no why: a value of enum classify_fixed_rule (classify.h) "
				 "without its row in rules[] (classify.c)",
				 i);
		assert_true(r->cls >= -1 && r->cls < _CLASS_MAX);
		assert_int_equal(classify_rule_from_key(r->key), (int)i);
	}
	assert_int_equal(classify_rule_from_key("no such rule"), -1);
	for (int k = 0; k < _CLASS_MAX; k++)
		assert_int_equal(class_from_key(class_key((enum class_id)k)), k);

	DIR *d = opendir(fixture("smaps"));
	struct dirent *de;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char name[512];
		if (!endswith(de->d_name, ".smaps"))
			continue;
		snprintf(name, sizeof(name), "smaps/%s", de->d_name);
		size_t len;
		char *text = slurp(fixture(name), &len);
		struct parsed p = parse_text_ex(text, len, true, NULL);
		free(text);
		assert_int_equal(p.error, 0);
		for (size_t i = 0; i < p.n; i++) {
			assert_true(p.r[i].cls < _CLASS_MAX);
			assert_true(p.r[i].rule < classify_rule_count());
			const struct classify_rule_info *r = classify_rule(p.r[i].rule);
			assert_true(r->cls < 0 || r->cls == p.r[i].cls);
		}
		parsed_free(&p);
	}
	closedir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_and_paths),   cmocka_unit_test(test_images_and_files),
		cmocka_unit_test(test_named),              cmocka_unit_test(test_glibc_arena),
		cmocka_unit_test(test_stacks),             cmocka_unit_test(test_jit_and_reserving_allocator),
		cmocka_unit_test(test_runtimes),           cmocka_unit_test(test_python_and_openblas),
		cmocka_unit_test(test_partition_alloc),
		cmocka_unit_test(test_jemalloc_shape),
		cmocka_unit_test(test_cuda),               cmocka_unit_test(test_captured_processes),
		cmocka_unit_test(test_cuda_layouts),       cmocka_unit_test(test_rule_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
