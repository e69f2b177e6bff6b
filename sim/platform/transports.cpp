#include "platform/transports.hpp"

namespace dasim::platform {

const TransportFacts& transport_facts(Transport transport) {
  static const TransportFacts ideal{1.0, "no transport overhead: the line rate"};
  // NVLink2 (V100) and NVLink3 (A100) both signal 25 GB/s per link and direction.
  static const TransportFacts nvlink{0.80,
                                     "NCCL src/graph/topo.h (v2.30.7), ncclTopoNVLinkBw: 20.0 GB/s per "
                                     "NVLink for SM70 and SM80 against 25 GB/s "
                                     "line rate; NCCL maintainer, github.com/NVIDIA/nccl-tests/issues/149 "
                                     "(2023-07-05): 'about 20 GB/s effective "
                                     "with SM 128-byte payloads' per A100 NVLink"};
  static const TransportFacts nvlink4{
      0.824,
      "NCCL src/graph/topo.h (v2.30.7), ncclTopoNVLinkBw: 20.6 GB/s per NVLink4 link (SM90) against 25 GB/s; "
      "NCCL maintainer, github.com/NVIDIA/nccl-tests/issues/212 (2024-05-06): H100 450 GB/s line rate, "
      "'about 370 "
      "GB/s effective' after ~20% protocol overhead"};
  static const TransportFacts nvlink5{
      40.1 / 50,
      "NCCL src/graph/topo.h (v2.30.7), ncclTopoNVLinkBw: 40.1 GB/s per NVLink5 link (SM100) against 50 GB/s "
      "line rate per direction (18 links, 900 GB/s per GPU: NVIDIA Blackwell datasheet)"};
  static const TransportFacts pcie{0.76,
                                   "NCCL src/graph/topo.h (v2.30.7): PCI_BW 12.0 GB/s for a PCIe Gen3 x16 "
                                   "link, whose line rate is 15.75 GB/s "
                                   "after 128b/130b encoding"};
  static const TransportFacts ib{
      0.96,
      "NCCL src/graph/topo.h (v2.30.7): NET_BW 12.0 GB/s for a 100 Gb/s (12.5 GB/s) NIC; NCCL maintainer, "
      "github.com/NVIDIA/nccl-tests/issues/119 (2022-11-17): 'about 24 GB/s busbw per 200 Gb/s NIC'"};
  static const TransportFacts roce{
      0.96,
      "as InfiniBand: NCCL drives RoCE v2 NICs through the same IB verbs transport "
      "(src/transport/net_ib.cc); no "
      "separate published efficiency, and congestion control (DCQCN) is not modelled"};
  static const TransportFacts tcp{
      0.94,
      "TCP/IPv4 payload of a 1500-byte-MTU Ethernet frame: 1448 bytes (1500 - 20 IP - 32 TCP with "
      "timestamps) of "
      "1538 on the wire (+14 header, 4 FCS, 8 preamble, 12 inter-frame gap); NCCL's socket transport, "
      "src/transport/net_socket.cc; per-socket limits are the link's \"tcp\" settings"};
  switch (transport) {
    case Transport::ideal:
      return ideal;
    case Transport::nvlink:
      return nvlink;
    case Transport::nvlink4:
      return nvlink4;
    case Transport::nvlink5:
      return nvlink5;
    case Transport::pcie:
      return pcie;
    case Transport::ib:
      return ib;
    case Transport::roce:
      return roce;
    case Transport::tcp:
      return tcp;
  }
  return ideal;
}

std::string to_string(Transport transport) {
  return std::string(kTransportNames.name(transport));
}

const NvlsFacts* nvls_facts(Transport port_transport) {
  // With NVLS each of n GPUs pushes its whole buffer S into the switch (multimem reads of every
  // slice) and receives the reduced S back (multimem stores), plus S/n each way for its own slice:
  // S (1 + 1/n) per port and direction, so busbw = 2(n-1)/n x S / t = 2(n-1)/(n+1) x e x the
  // port's achieved rate. e is NCCL's own NVLS efficiency, not fitted to a measurement.
  static const NvlsFacts hopper{0.85, "NCCL src/graph/tuning.cc (v2.30.7), nvlsEfficiency for Hopper: 0.85"};
  static const NvlsFacts blackwell{0.74,
                                   "NCCL src/graph/tuning.cc (v2.30.7), nvlsEfficiency for Blackwell: 0.74"};
  if (port_transport == Transport::nvlink4) return &hopper;
  if (port_transport == Transport::nvlink5) return &blackwell;
  return nullptr;
}

}  // namespace dasim::platform
