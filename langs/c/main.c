/* iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through stdio, close, read
 * them back one byte per call. Prints one JSON line per rep and op. The timed loops are the
 * calls and nothing more (the read folds each byte into one sum); the harness checks the file
 * after each write and the sum after each read.
 * Variants:
 *   default   fputc/fgetc on a FILE* with stdio's own buffer (the idiomatic call)
 *   unlocked  putc_unlocked/getc_unlocked: the same buffer without a lock per call
 *   bigbuf    fputc/fgetc with a 1 MiB setvbuf buffer
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wait_line(int wait) {
    if (wait) {
        int c;
        while ((c = getchar()) != EOF && c != '\n') {
        }
    }
}

int main(int argc, char **argv) {
    const char *file = NULL, *variant = "default";
    long long n = 0;
    int reps = 1, wait = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc) variant = argv[++i];
        else if (!strcmp(argv[i], "--wait")) wait = 1;
    }
    int unlocked = !strcmp(variant, "unlocked"), bigbuf = !strcmp(variant, "bigbuf");
    if (!file || (!unlocked && !bigbuf && strcmp(variant, "default"))) {
        fprintf(stderr, "usage: --file PATH --bytes N --reps R --variant default|unlocked|bigbuf\n");
        return 2;
    }
    char *buf = bigbuf ? malloc(1 << 20) : NULL;
    for (int rep = 1; rep <= reps; rep++) {
        /* Timed: open, one call per byte, close. Nothing else in the loop: the harness reads
         * the file back itself to check what was written. */
        uint64_t t0 = now_ns();
        FILE *out = fopen(file, "wb");
        if (!out) { perror(file); return 1; }
        if (bigbuf) setvbuf(out, buf, _IOFBF, 1 << 20);
        if (unlocked) {
            for (long long i = 0; i < n; i++) putc_unlocked((int)(i & 255), out);
        } else {
            for (long long i = 0; i < n; i++) fputc((int)(i & 255), out);
        }
        /* stdio's error flag is sticky: one check after the loop sees any failed call. */
        if (ferror(out) | fclose(out)) { perror(file); return 1; }
        uint64_t ns = now_ns() - t0;
        printf("{\"lang\":\"c\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"write\",\"bytes\":%lld,\"ns\":%llu,\"checksum\":0}\n",
               variant, rep, n, (unsigned long long)ns);
        fflush(stdout);
        wait_line(wait);
        /* Timed: open, one call per byte folded into one sum (so the loop cannot be dropped),
         * close. The harness checks the sum; the count is the position reached, untimed. */
        uint64_t sum = 0;
        t0 = now_ns();
        FILE *in = fopen(file, "rb");
        if (!in) { perror(file); return 1; }
        if (bigbuf) setvbuf(in, buf, _IOFBF, 1 << 20);
        int c;
        if (unlocked) {
            while ((c = getc_unlocked(in)) != EOF) sum += (uint64_t)c;
        } else {
            while ((c = fgetc(in)) != EOF) sum += (uint64_t)c;
        }
        long long count = ftell(in);
        int failed = ferror(in);
        fclose(in);
        ns = now_ns() - t0;
        if (failed) { perror(file); return 1; }
        printf("{\"lang\":\"c\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"read\",\"bytes\":%lld,\"ns\":%llu,\"checksum\":%llu}\n",
               variant, rep, count, (unsigned long long)ns, (unsigned long long)sum);
        fflush(stdout);
    }
    return 0;
}
