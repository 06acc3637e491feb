/* iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through stdio, close, read
 * them back one byte per call, check them. Prints one JSON line per rep and op.
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
        uint64_t sum = 0, t0 = now_ns();
        FILE *out = fopen(file, "wb");
        if (!out) { perror(file); return 1; }
        if (bigbuf) setvbuf(out, buf, _IOFBF, 1 << 20);
        for (long long i = 0; i < n; i++) {
            int b = (int)(i & 255);
            if ((unlocked ? putc_unlocked(b, out) : fputc(b, out)) == EOF) { perror(file); return 1; }
            sum += (uint64_t)b;
        }
        if (fclose(out)) { perror(file); return 1; }
        printf("{\"lang\":\"c\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"write\",\"bytes\":%lld,\"ns\":%llu,\"checksum\":%llu}\n",
               variant, rep, n, (unsigned long long)(now_ns() - t0), (unsigned long long)sum);
        fflush(stdout);
        wait_line(wait);
        sum = 0;
        long long count = 0;
        t0 = now_ns();
        FILE *in = fopen(file, "rb");
        if (!in) { perror(file); return 1; }
        if (bigbuf) setvbuf(in, buf, _IOFBF, 1 << 20);
        int c;
        while ((c = unlocked ? getc_unlocked(in) : fgetc(in)) != EOF) {
            if (c != (int)(count & 255)) {
                fprintf(stderr, "byte %lld is %d, expected %lld\n", count, c, count & 255);
                return 3;
            }
            sum += (uint64_t)c;
            count++;
        }
        fclose(in);
        printf("{\"lang\":\"c\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"read\",\"bytes\":%lld,\"ns\":%llu,\"checksum\":%llu}\n",
               variant, rep, count, (unsigned long long)(now_ns() - t0), (unsigned long long)sum);
        fflush(stdout);
    }
    return 0;
}
