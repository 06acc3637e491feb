// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through iostreams, close,
// read them back one byte per call, check them. Prints one JSON line per rep and op.
// Variants:
//   default  operator<< / operator>> on ofstream/ifstream, as in 2019, with std::noskipws so
//            that whitespace bytes are read too (2019's >> skipped them)
//   putget   ostream::put / istream::get, the calls suggested after 2019
//   rdbuf    the stream buffer's sputc / sbumpc, without the stream's sentry per call
#include <chrono>
#include <cstdint>
#include <cstdlib>
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
    if (file.empty() || (variant != "default" && variant != "putget" && variant != "rdbuf")) {
        std::cerr << "usage: --file PATH --bytes N --reps R --variant default|putget|rdbuf\n";
        return 2;
    }
    // Decided once, not per byte: a string comparison per call would cost more than the call.
    const int mode = variant == "default" ? 0 : variant == "putget" ? 1 : 2;
    for (int rep = 1; rep <= reps; rep++) {
        uint64_t sum = 0, t0 = now_ns();
        {
            std::ofstream out(file, std::ios::binary);
            if (!out) { std::cerr << file << ": cannot open\n"; return 1; }
            std::streambuf *sb = out.rdbuf();
            for (long long i = 0; i < n; i++) {
                char b = static_cast<char>(i & 255);
                if (mode == 0) out << b;
                else if (mode == 1) out.put(b);
                else sb->sputc(b);
                sum += static_cast<unsigned char>(b);
            }
            out.close();
            if (!out) { std::cerr << file << ": write failed\n"; return 1; }
        }
        line(variant, rep, "write", n, now_ns() - t0, sum);
        if (wait) { std::string s; std::getline(std::cin, s); }
        sum = 0;
        long long count = 0;
        t0 = now_ns();
        {
            std::ifstream in(file, std::ios::binary);
            if (!in) { std::cerr << file << ": cannot open\n"; return 1; }
            in >> std::noskipws;
            std::streambuf *sb = in.rdbuf();
            char c;
            for (;;) {
                int v;
                if (mode == 0) { if (!(in >> c)) break; v = static_cast<unsigned char>(c); }
                else if (mode == 1) { if (!in.get(c)) break; v = static_cast<unsigned char>(c); }
                else { v = sb->sbumpc(); if (v == std::char_traits<char>::eof()) break; }
                if (v != (count & 255)) {
                    std::cerr << "byte " << count << " is " << v << ", expected " << (count & 255) << "\n";
                    return 3;
                }
                sum += v;
                count++;
            }
        }
        line(variant, rep, "read", count, now_ns() - t0, sum);
    }
    return 0;
}
