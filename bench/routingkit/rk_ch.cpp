// Same-run RoutingKit driver for bench/ch.ts (issue #26): loads one benchmark graph, builds
// RoutingKit's ContractionHierarchy, times point-to-point queries (distance only, then with
// get_node_path) and RoutingKit's Dijkstra on the pairs that bench/ch.ts wrote, and prints one
// JSON line. Written for this project against RoutingKit's public headers; see build.sh.
//
//   rk_ch gr <file.gr> <pairs.bin> <builds>
//   rk_ch ngraph <co.bin> <gr.bin> <pairs.bin> <builds>
//
// pairs.bin: little-endian uint32: P, then P (s,t) pairs (0-based), then D, then D (s,t) pairs.
#include <routingkit/contraction_hierarchy.h>
#include <routingkit/dijkstra.h>

#include <sys/resource.h>
#include <unistd.h>
#include <time.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>

using namespace RoutingKit;

namespace {

double wall_s() {
  timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
double cpu_s() {
  timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
double rss_now_mb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}
double rss_peak_mb() {
  rusage u; getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

std::vector<char> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

struct Graph {
  unsigned n = 0;
  std::vector<unsigned> tail, head, weight;
};

Graph read_gr(const std::string& path) {
  std::vector<char> buf = read_all(path);
  buf.push_back('\0');
  Graph g;
  const char* p = buf.data();
  while (*p) {
    if (*p == 'p') {
      unsigned long n = 0, m = 0;
      char tmp[16];
      if (std::sscanf(p, "p %15s %lu %lu", tmp, &n, &m) != 3) throw std::runtime_error("bad p line");
      g.n = (unsigned)n;
      g.tail.reserve(m); g.head.reserve(m); g.weight.reserve(m);
    } else if (*p == 'a') {
      char* q;
      unsigned long u = std::strtoul(p + 1, &q, 10);
      unsigned long v = std::strtoul(q, &q, 10);
      unsigned long w = std::strtoul(q, &q, 10);
      g.tail.push_back((unsigned)(u - 1));
      g.head.push_back((unsigned)(v - 1));
      g.weight.push_back((unsigned)w);
    }
    while (*p && *p != '\n') ++p;
    if (*p) ++p;
  }
  return g;
}

Graph read_ngraph(const std::string& co_path, const std::string& gr_path) {
  std::vector<char> co = read_all(co_path), gr = read_all(gr_path);
  const int32_t* c = reinterpret_cast<const int32_t*>(co.data());
  const int32_t* e = reinterpret_cast<const int32_t*>(gr.data());
  Graph g;
  g.n = (unsigned)(co.size() / 8);
  size_t m = gr.size() / 8;
  g.tail.resize(2 * m); g.head.resize(2 * m); g.weight.resize(2 * m);
  for (size_t k = 0; k < m; ++k) {
    unsigned u = (unsigned)(e[2 * k] - 1), v = (unsigned)(e[2 * k + 1] - 1);
    double dx = (double)c[2 * v] - c[2 * u], dy = (double)c[2 * v + 1] - c[2 * u + 1];
    unsigned w = (unsigned)std::llround(std::hypot(dx, dy));
    g.tail[2 * k] = u; g.head[2 * k] = v; g.weight[2 * k] = w;
    g.tail[2 * k + 1] = v; g.head[2 * k + 1] = u; g.weight[2 * k + 1] = w;
  }
  return g;
}

void read_pairs(const std::string& path, std::vector<unsigned>& ps, std::vector<unsigned>& pt, std::vector<unsigned>& ds, std::vector<unsigned>& dt) {
  std::vector<char> b = read_all(path);
  const uint32_t* w = reinterpret_cast<const uint32_t*>(b.data());
  size_t i = 0;
  uint32_t P = w[i++];
  for (uint32_t k = 0; k < P; ++k) { ps.push_back(w[i++]); pt.push_back(w[i++]); }
  uint32_t D = w[i++];
  for (uint32_t k = 0; k < D; ++k) { ds.push_back(w[i++]); dt.push_back(w[i++]); }
}

std::string list(const std::vector<double>& xs) {
  std::ostringstream o;
  o.precision(12);
  o << '[';
  for (size_t i = 0; i < xs.size(); ++i) { if (i) o << ','; o << xs[i]; }
  o << ']';
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    double base_rss = rss_now_mb();
    if (argc < 2) throw std::runtime_error("usage: rk_ch gr <file.gr> <pairs.bin> <builds> | rk_ch ngraph <co.bin> <gr.bin> <pairs.bin> <builds>");
    std::string fmt = argv[1];
    Graph g;
    std::string pairs_path;
    int builds = 1;
    if (fmt == "gr" && argc == 5) { g = read_gr(argv[2]); pairs_path = argv[3]; builds = std::atoi(argv[4]); }
    else if (fmt == "ngraph" && argc == 6) { g = read_ngraph(argv[2], argv[3]); pairs_path = argv[4]; builds = std::atoi(argv[5]); }
    else throw std::runtime_error("bad arguments");
    std::vector<unsigned> ps, pt, ds, dt;
    read_pairs(pairs_path, ps, pt, ds, dt);

    std::vector<double> build_wall, build_cpu;
    ContractionHierarchy ch;
    for (int b = 0; b < builds; ++b) {
      ch = ContractionHierarchy();
      double c0 = cpu_s(), t0 = wall_s();
      ch = ContractionHierarchy::build(g.n, g.tail, g.head, g.weight);
      build_wall.push_back(wall_s() - t0);
      build_cpu.push_back(cpu_s() - c0);
    }

    if (const char* dump = std::getenv("RK_DUMP")) {
      // Diagnostic: the hierarchy as little-endian uint32 arrays, each preceded by its length:
      // rank, forward first_out/head/weight, backward first_out/head/weight.
      std::ofstream o(dump, std::ios::binary);
      for (const std::vector<unsigned>* v : {&ch.rank, &ch.forward.first_out, &ch.forward.head, &ch.forward.weight,
                                             &ch.backward.first_out, &ch.backward.head, &ch.backward.weight}) {
        uint32_t len = (uint32_t)v->size();
        o.write(reinterpret_cast<const char*>(&len), 4);
        o.write(reinterpret_cast<const char*>(v->data()), 4 * (std::streamsize)len);
      }
    }
    ContractionHierarchyQuery q(ch);
    size_t P = ps.size();
    for (size_t i = 0; i < 1000 && i < P; ++i) q.reset().add_source(ps[i]).add_target(pt[i]).run().get_distance();
    std::vector<double> query_wall, query_cpu, path_wall, path_cpu;
    unsigned long long dist_sum = 0;
    unsigned unreachable = 0;
    for (int pass = 0; pass < 5; ++pass) {
      unsigned long long sum = 0;
      unsigned unr = 0;
      double c0 = cpu_s(), t0 = wall_s();
      for (size_t i = 0; i < P; ++i) {
        unsigned d = q.reset().add_source(ps[i]).add_target(pt[i]).run().get_distance();
        if (d == inf_weight) ++unr; else sum += d;
      }
      query_wall.push_back((wall_s() - t0) * 1e6 / P);
      query_cpu.push_back((cpu_s() - c0) * 1e6 / P);
      dist_sum = sum; unreachable = unr;
    }
    unsigned long long path_nodes = 0;
    for (int pass = 0; pass < 3; ++pass) {
      unsigned long long nodes = 0;
      double c0 = cpu_s(), t0 = wall_s();
      for (size_t i = 0; i < P; ++i) {
        q.reset().add_source(ps[i]).add_target(pt[i]).run();
        nodes += q.get_node_path().size();
      }
      path_wall.push_back((wall_s() - t0) * 1e6 / P);
      path_cpu.push_back((cpu_s() - c0) * 1e6 / P);
      path_nodes = nodes;
    }

    // Arcs sorted by tail (counting sort) for RoutingKit's Dijkstra.
    std::vector<unsigned> first_out(g.n + 1, 0);
    for (unsigned t : g.tail) ++first_out[t + 1];
    for (unsigned v = 0; v < g.n; ++v) first_out[v + 1] += first_out[v];
    std::vector<unsigned> stail(g.tail.size()), shead(g.tail.size()), sweight(g.tail.size());
    {
      std::vector<unsigned> pos(first_out.begin(), first_out.end() - 1);
      for (size_t a = 0; a < g.tail.size(); ++a) {
        unsigned p = pos[g.tail[a]]++;
        stail[p] = g.tail[a]; shead[p] = g.head[a]; sweight[p] = g.weight[a];
      }
    }
    Dijkstra dij(first_out, stail, shead);
    std::vector<double> dij_wall, dij_cpu;
    std::vector<double> dij_dist(ds.size());
    unsigned mismatches = 0;
    for (int pass = 0; pass < 2; ++pass) {
      double c0 = cpu_s(), t0 = wall_s();
      for (size_t i = 0; i < ds.size(); ++i) {
        dij.reset().add_source(ds[i]);
        unsigned d = inf_weight;
        while (!dij.is_finished()) {
          auto r = dij.settle(ScalarGetWeight(sweight));
          if (r.node == dt[i]) { d = r.distance; break; }
        }
        dij_dist[i] = d == inf_weight ? -1.0 : (double)d;
      }
      dij_wall.push_back((wall_s() - t0) * 1e3 / ds.size());
      dij_cpu.push_back((cpu_s() - c0) * 1e3 / ds.size());
    }
    for (size_t i = 0; i < ds.size(); ++i) {
      unsigned d = q.reset().add_source(ds[i]).add_target(dt[i]).run().get_distance();
      double want = dij_dist[i];
      if ((d == inf_weight ? -1.0 : (double)d) != want) ++mismatches;
    }

    std::printf("{\"impl\":\"rk\",\"nodes\":%u,\"arcs\":%zu,\"chArcs\":%zu,\"buildWallS\":%s,\"buildCpuS\":%s,"
                "\"queryWallUs\":%s,\"queryCpuUs\":%s,\"pathWallUs\":%s,\"pathCpuUs\":%s,"
                "\"dijkstraWallMs\":%s,\"dijkstraCpuMs\":%s,\"distSum\":%llu,\"unreachable\":%u,\"pathNodes\":%llu,"
                "\"dijkstraDist\":%s,\"mismatches\":%u,\"checked\":%zu,\"baseRssMB\":%.1f,\"rssMB\":%.1f}\n",
                g.n, g.tail.size(), ch.forward.head.size() + ch.backward.head.size(),
                list(build_wall).c_str(), list(build_cpu).c_str(),
                list(query_wall).c_str(), list(query_cpu).c_str(), list(path_wall).c_str(), list(path_cpu).c_str(),
                list(dij_wall).c_str(), list(dij_cpu).c_str(), dist_sum, unreachable, path_nodes,
                list(dij_dist).c_str(), mismatches, ds.size(), base_rss, rss_peak_mb());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rk_ch: %s\n", e.what());
    return 1;
  }
}
