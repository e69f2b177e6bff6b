// How a collective library moves data over a link, and the fraction of the line rate a large
// transfer reaches that way. NCCL copies over NVLink and PCIe with GPU threads (SMs), whose
// 128-byte payloads leave part of a link unused; it drives NICs through IB verbs (InfiniBand and
// RoCE) or kernel TCP sockets. The defaults come from NCCL's own topology constants and its
// maintainers' published statements (sources in transports.cpp and docs/file-formats.md); a link
// may override them with "efficiency". The achieved rate, not the line rate, is what the simulated
// links carry: a transfer of S bytes takes S / (line rate x efficiency).
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::platform {

enum class Transport { ideal, nvlink, nvlink4, nvlink5, pcie, ib, roce, tcp };
inline constexpr EnumNames<Transport, 8> kTransportNames{{{
    {Transport::ideal, "ideal"},
    {Transport::nvlink, "nvlink"},
    {Transport::nvlink4, "nvlink4"},
    {Transport::nvlink5, "nvlink5"},
    {Transport::pcie, "pcie"},
    {Transport::ib, "ib"},
    {Transport::roce, "roce"},
    {Transport::tcp, "tcp"},
}}};

struct TransportFacts {
  double efficiency;   // achieved / line rate for large transfers, in (0, 1]
  const char* source;  // where the figure comes from
};

const TransportFacts& transport_facts(Transport transport);
std::string to_string(Transport transport);

// NVLink SHARP (NVLS): the fraction of an NVSwitch port's achieved rate (its transport's) a GPU's
// multimem loads and stores reach (see transports.cpp), used when a platform declares "nvls".
// Only NVSwitch generations with NVLS have it: nullptr for a port transport other than nvlink4
// (Hopper) or nvlink5 (Blackwell).
struct NvlsFacts {
  double efficiency;
  const char* source;
};
const NvlsFacts* nvls_facts(Transport port_transport);

}  // namespace dasim::platform
