#include "registry.hpp"

#include "local/local_transport.hpp"
#include "tcp/tcp_transport.hpp"
#ifdef EVB_HAVE_MPI
#include "mpi/mpi_transport.hpp"
#endif
#ifdef EVB_HAVE_VERBS
#include "verbs/verbs_transport.hpp"
#endif

namespace evb {
namespace {

// Owns the in-process fabric together with the rank's transport.
class OwnedLocalTransport final : public Transport {
public:
    OwnedLocalTransport(std::shared_ptr<LocalFabric> fabric, std::uint32_t rank) : fabric_(std::move(fabric)), t_(*fabric_, rank) {}
    const char* name() const override { return t_.name(); }
    std::uint32_t rank() const override { return t_.rank(); }
    std::uint32_t size() const override { return t_.size(); }
    Capabilities capabilities() const override { return t_.capabilities(); }
    std::string local_address() override { return t_.local_address(); }
    void connect(const std::vector<std::string>& a, Picoseconds t) override { t_.connect(a, t); }
    MemoryRegion register_memory(std::byte* b, std::size_t l) override { return t_.register_memory(b, l); }
    PostStatus post_send(std::uint32_t p, const Message& m) override { return t_.post_send(p, m); }
    PostStatus post_write(std::uint32_t p, const MemoryRegion& l, std::size_t lo, std::uint64_t k, std::uint64_t ro,
                          std::size_t n, std::uint32_t imm, std::uint64_t c) override {
        return t_.post_write(p, l, lo, k, ro, n, imm, c);
    }
    std::size_t poll(std::span<Completion> out) override { return t_.poll(out); }

private:
    std::shared_ptr<LocalFabric> fabric_;
    LocalTransport t_;
};

std::vector<DriverEntry> build_list() {
    std::vector<DriverEntry> list;
    list.push_back({"local", "all ranks in this process, writes are memcpy (no launcher needed)", true,
                    [](const Config&, std::uint32_t ranks) {
                        auto fabric = std::make_shared<LocalFabric>(ranks);
                        std::vector<std::unique_ptr<Transport>> all;
                        for (std::uint32_t r = 0; r < ranks; ++r) all.push_back(std::make_unique<OwnedLocalTransport>(fabric, r));
                        return all;
                    },
                    nullptr});
    // The simulated fabric has its own executor (drivers/sim/sim_run.hpp): no make function.
    list.push_back({"sim", "every rank in this process on a simulated InfiniBand fabric (src/netsim), in simulated time", false, nullptr,
                    nullptr});
#ifdef EVB_HAVE_VERBS
    list.push_back({"verbs", "one process per rank over InfiniBand verbs / RoCE (rdma_cm, RC QPs, RDMA write with immediate)", false, nullptr,
                    [](const Config& c, std::uint32_t rank, std::uint32_t ranks) -> std::unique_ptr<Transport> {
                        return std::make_unique<VerbsTransport>(rank, ranks, VerbsOptions{c.verbs_device, c.verbs_port, c.listen_host});
                    },
                    [](const Config& c) {
                        if (auto problem = VerbsTransport::device_problem(c.verbs_device)) throw ConfigError(*problem);
                    }});
#endif
#ifdef EVB_HAVE_MPI
    list.push_back({"mpi", "one process per rank over MPI (mpirun, srun --mpi=pmix); --mpi-rma for one-sided writes", false, nullptr,
                    [](const Config& c, std::uint32_t rank, std::uint32_t ranks) -> std::unique_ptr<Transport> {
                        return std::make_unique<MpiTransport>(rank, ranks, c.mpi_rma);
                    }});
#endif
    list.push_back({"tcp", "one process per rank over TCP sockets (epoll), RDMA write emulated", false, nullptr,
                    [](const Config& c, std::uint32_t rank, std::uint32_t ranks) -> std::unique_ptr<Transport> {
                        return std::make_unique<TcpTransport>(rank, ranks, c.listen_host);
                    }});
    return list;
}

} // namespace

const std::vector<DriverEntry>& drivers() {
    static const std::vector<DriverEntry> list = build_list();
    return list;
}

const DriverEntry* find_driver(const std::string& name) {
    for (const auto& d : drivers())
        if (name == d.name) return &d;
    return nullptr;
}

std::string driver_names() {
    std::string s;
    for (const auto& d : drivers()) s += (s.empty() ? "" : ", ") + std::string(d.name);
    return s;
}

} // namespace evb
