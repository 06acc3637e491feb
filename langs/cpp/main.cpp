// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through iostreams, close,
// read them back one byte per call. Prints one JSON line per rep and op.
// Variants:
//   default  operator<< / operator>> on ofstream/ifstream, as in 2019, with std::noskipws so
//            that whitespace bytes are read too (2019's >> skipped them)
//   putget   ostream::put / istream::get, the calls suggested after 2019
//   rdbuf    the stream buffer's sputc / sbumpc, without the stream's sentry per call
//   2019     2019's program exactly: << / >> of uint8_t for i = 1..N (>> skips whitespace
//            bytes, so it reads past them), the read timed through close and delete
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

static uint64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static void line(const std::string &variant, int rep, const char *op, long long bytes,
                 uint64_t ns, uint64_t sum);

// 2019's loops and timing, kept as they were (rvprasad/io-perf, measure.cpp).
static void run2019(const std::string &file, long long n, int reps, bool wait) {
    std::remove(file.c_str());
    for (int rep = 1; rep <= reps; rep++) {
        uint64_t t0 = now_ns();
        {
            std::ofstream writer(file, std::ios_base::binary);
            for (long long i = 1; i <= n; ++i) writer << (uint8_t)(i & 0xff);
        }
        line("2019", rep, "write", n, now_ns() - t0, 0);
        if (wait) { std::string s; std::getline(std::cin, s); }
        t0 = now_ns();
        {
            std::ifstream reader(file, std::ios_base::binary);
            uint8_t c;
            for (long long i = 1; i <= n; ++i) reader >> c;
            std::remove(file.c_str());
        }
        line("2019", rep, "read", n, now_ns() - t0, 0);
    }
}

static void line(const std::string &variant, int rep, const char *op, long long bytes,
                 uint64_t ns, uint64_t sum) {
    std::cout << "{\"lang\":\"cpp\",\"variant\":\"" << variant << "\",\"rep\":" << rep
              << ",\"op\":\"" << op << "\",\"bytes\":" << bytes << ",\"ns\":" << ns
              << ",\"checksum\":" << sum << "}" << std::endl;
}

int main(int argc, char **argv) {
    std::string file, variant = "default";
    long long n = 0;
    int reps = 1;
    bool wait = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--file" && i + 1 < argc) file = argv[++i];
        else if (a == "--bytes" && i + 1 < argc) n = std::atoll(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (a == "--variant" && i + 1 < argc) variant = argv[++i];
        else if (a == "--wait") wait = true;
    }
    if (file.empty() || (variant != "default" && variant != "putget" && variant != "rdbuf" &&
                         variant != "2019")) {
        std::cerr << "usage: --file PATH --bytes N --reps R --variant default|putget|rdbuf|2019\n";
        return 2;
    }
    if (variant == "2019") {
        run2019(file, n, reps, wait);
        return 0;
    }
    // Decided once, not per byte: each variant has its own loops, which hold the calls and
    // nothing more (the read folds each byte into one sum, so it cannot be dropped). The
    // harness checks the file after each write and the sum after each read.
    const int mode = variant == "default" ? 0 : variant == "putget" ? 1 : 2;
    for (int rep = 1; rep <= reps; rep++) {
        uint64_t t0 = now_ns();
        {
            std::ofstream out(file, std::ios::binary);
            if (!out) { std::cerr << file << ": cannot open\n"; return 1; }
            if (mode == 0) {
                for (long long i = 0; i < n; i++) out << static_cast<char>(i & 255);
            } else if (mode == 1) {
                for (long long i = 0; i < n; i++) out.put(static_cast<char>(i & 255));
            } else {
                std::streambuf *sb = out.rdbuf();
                for (long long i = 0; i < n; i++) sb->sputc(static_cast<char>(i & 255));
            }
            out.close();
            // A stream's failure is sticky: one check after the loop sees any failed call.
            if (!out) { std::cerr << file << ": write failed\n"; return 1; }
        }
        line(variant, rep, "write", n, now_ns() - t0, 0);
        if (wait) { std::string s; std::getline(std::cin, s); }
        uint64_t sum = 0;
        long long count = 0;
        t0 = now_ns();
        {
            std::ifstream in(file, std::ios::binary);
            if (!in) { std::cerr << file << ": cannot open\n"; return 1; }
            in >> std::noskipws;
            char c;
            if (mode == 0) {
                while (in >> c) sum += static_cast<unsigned char>(c);
            } else if (mode == 1) {
                while (in.get(c)) sum += static_cast<unsigned char>(c);
            } else {
                std::streambuf *sb = in.rdbuf();
                for (int v; (v = sb->sbumpc()) != std::char_traits<char>::eof();) sum += v;
            }
            // Where the reads ended: the count, asked once after the loop.
            in.clear();
            count = static_cast<long long>(in.rdbuf()->pubseekoff(0, std::ios::cur, std::ios::in));
        }
        line(variant, rep, "read", count, now_ns() - t0, sum);
    }
    return 0;
}
