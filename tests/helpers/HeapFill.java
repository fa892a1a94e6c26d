/* The Java heap helper: a JVM whose heap holds a known amount of live
 * objects among many dropped ones, so tests can compare what a census
 * reads of its hsperfdata file with what the JVM says of its own heap.
 *
 *   java [JVM options] tests/helpers/HeapFill.java [--keep=MiB] [--drop=MiB]
 *
 * It allocates --drop MiB (default 192) of 64 KiB arrays (the JVM zeroes
 * each, so every page they take is touched), keeps one array in eight (or --keep MiB of them, default 24,
 * whichever is fewer) reachable from a static list and drops the rest
 * as it goes, then asks for a collection so that what it dropped is free
 * memory of the heap.  Then it prints one line of JSON and flushes it:
 *   {"pid": N, "kept": BYTES, "used": BYTES, "committed": BYTES, "max": BYTES}
 * where used and committed are the heap's as the JVM's MemoryMXBean
 * reports them.  Each line read from standard input prints the line
 * again (the figures of that moment); it exits when its input closes. */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;

public class HeapFill {
	private static final int BLOCK = 64 * 1024;
	/* What keeps the kept arrays reachable. */
	static volatile List<byte[]> kept = new ArrayList<>();

	private static long option(String[] args, String name, long fallback) {
		for (String a : args)
			if (a.startsWith("--" + name + "="))
				return Long.parseLong(a.substring(name.length() + 3));
		return fallback;
	}

	private static void report() {
		MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
		long keptBytes = (long) kept.size() * BLOCK;
		System.out.printf("{\"pid\": %d, \"kept\": %d, \"used\": %d, \"committed\": %d, \"max\": %d}%n",
				ProcessHandle.current().pid(), keptBytes, heap.getUsed(), heap.getCommitted(), heap.getMax());
		System.out.flush();
	}

	public static void main(String[] args) throws Exception {
		long drop = option(args, "drop", 192) * 1024 * 1024;
		long keep = option(args, "keep", 24) * 1024 * 1024;
		long keptBytes = 0, n = 0;
		for (long done = 0; done < drop; done += BLOCK, n++) {
			byte[] b = new byte[BLOCK];
			for (int i = 0; i < BLOCK; i += 512)
				b[i] = (byte) n;
			if (n % 8 == 0 && keptBytes < keep) {
				kept.add(b);
				keptBytes += BLOCK;
			}
		}
		System.gc();
		report();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		while (in.readLine() != null)
			report();
	}
}
