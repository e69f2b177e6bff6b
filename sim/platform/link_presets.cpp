#include "platform/link_presets.hpp"

namespace dasim::platform {

// Bandwidths are the signalling data rates after line encoding (64b/66b for EDR and faster, and
// for 10/25/100/400 GbE), i.e. the line rate; what NCCL reaches over them is the transport's
// efficiency x that (transports.hpp). Latencies are one hop through a switch port as vendors quote
// it; end-to-end figures add the NIC latency of the platform file. Ethernet presets are driven as
// RoCE v2 (NCCL's IB verbs transport) except 10 GbE, which commodity clusters run over TCP; a
// platform file states "transport": "tcp" for a TCP cluster on faster Ethernet.
const std::vector<LinkPreset>& link_presets() {
  static const std::vector<LinkPreset> presets{
      {"ib-edr", 100e9 / 8, 0.6e-6, Transport::ib,
       "InfiniBand EDR 4x: 100 Gb/s data rate (IBTA spec rel. 1.3); ~0.6 us port-to-port incl. "
       "Mellanox SB7800 switch (90 ns) and ConnectX-5 adapter (~0.5 us) per Mellanox product briefs"},
      {"ib-hdr", 200e9 / 8, 0.6e-6, Transport::ib,
       "InfiniBand HDR 4x: 200 Gb/s (IBTA spec rel. 1.4); ~0.6 us incl. QM8700 switch (130 ns) and "
       "ConnectX-6 adapter per NVIDIA/Mellanox product briefs"},
      {"ib-ndr", 400e9 / 8, 0.6e-6, Transport::ib,
       "InfiniBand NDR 4x: 400 Gb/s (IBTA spec rel. 1.5); ~0.6 us incl. QM9700 switch and ConnectX-7 "
       "adapter per NVIDIA product briefs"},
      {"ib-xdr", 800e9 / 8, 0.6e-6, Transport::ib,
       "InfiniBand XDR 4x: 800 Gb/s (NVIDIA Quantum-X800 / ConnectX-8, 2024 product briefs); latency "
       "assumed as NDR's (~0.6 us), no published port-to-port figure found"},
      {"eth-10g", 10e9 / 8, 5e-6, Transport::tcp,
       "10GBASE (IEEE 802.3ae): 10 Gb/s; ~5 us one hop with a kernel TCP stack (typical measured "
       "small-message half round trip)"},
      {"eth-25g", 25e9 / 8, 3e-6, Transport::roce,
       "25GBASE (IEEE 802.3by): 25 Gb/s; ~3 us one hop RoCEv2/kernel-bypass class NIC (e.g. "
       "ConnectX-4 Lx) plus cut-through switch"},
      {"eth-50g", 50e9 / 8, 2e-6, Transport::roce,
       "50GBASE (IEEE 802.3cd): 50 Gb/s; ~2 us one hop RoCEv2 (ConnectX-5/6 class) plus cut-through "
       "switch, as 100 GbE"},
      {"eth-100g", 100e9 / 8, 2e-6, Transport::roce,
       "100GBASE (IEEE 802.3bj/cd): 100 Gb/s; ~2 us one hop RoCEv2 (ConnectX-5/6 class) plus "
       "cut-through switch (~0.5 us)"},
      {"eth-200g", 200e9 / 8, 2e-6, Transport::roce,
       "200GBASE (IEEE 802.3bs/cd): 200 Gb/s; ~2 us one hop RoCEv2 (ConnectX-6/7 class), as 100 GbE"},
      {"eth-400g", 400e9 / 8, 2e-6, Transport::roce,
       "400GBASE (IEEE 802.3bs/ck): 400 Gb/s; ~2 us one hop RoCEv2 (ConnectX-7 / Spectrum-X class)"},
      {"eth-800g", 800e9 / 8, 2e-6, Transport::roce,
       "800GBASE (IEEE 802.3df, 2024): 800 Gb/s; latency assumed as 400 GbE's (~2 us one hop "
       "RoCEv2, ConnectX-8 / Spectrum-X800 class)"},
  };
  return presets;
}

std::optional<LinkPreset> find_link_preset(const std::string& name) {
  for (const auto& p : link_presets())
    if (p.name == name) return p;
  return std::nullopt;
}

}  // namespace dasim::platform
