"""What a sweep column holds, read from its name: the unit to show it in, and whether efficiency
rises with it (a bandwidth, a host's input rate) or falls (a latency, an oversubscription).

dasim names a sweep's column after its parameter and unit (docs/file-formats.md, `sweep`):
`<part>_bandwidth_Bps` in bytes per second, `<part>_latency_s` in seconds, `oversubscription` a
ratio, `host_input_samples_per_s` in samples per second.
"""

from dataclasses import dataclass, replace

from .errors import fail


@dataclass(frozen=True)
class SweptQuantity:
    noun: str             # "bandwidth": what the sizing table finds a threshold of
    axis_name: str        # "NVLink bandwidth per link": the axis label and the title
    unit: str             # "Gb/s": after a value, in the table and the legend
    table_column: str     # "bandwidth_Gbps": the table's column with the threshold value
    scale: float          # column value x scale = value in `unit`
    more_is_better: bool  # efficiency rises with the value: the threshold is the least value
    extreme: str          # "slowest" (more is better) or "largest": the threshold's adjective
    title: str            # the figure's title
    # Interpolate (and draw) in log(value): a bandwidth's or a latency's effect spans decades. A
    # host rate's is linear: below the GPUs' own rate efficiency is rate / (GPUs x the 1-GPU rate).
    log: bool = True

    def shown(self, column_values):
        return column_values * self.scale

    @property
    def is_ratio(self):
        return self.unit == ":1"

    def _with_unit(self, text):
        """2:1 for a ratio, 100 Gb/s for the others."""
        return f"{text}:1" if self.is_ratio else f"{text} {self.unit}"

    def format(self, value):
        return self._with_unit(f"{value:g}")

    def format_short(self, value):
        """Three significant digits, whole numbers from 1000 up (5000 us, not 5e+03 us)."""
        return self._with_unit(f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}")

    def tick(self, value):
        """An axis tick: the number alone (the axis label has the unit), a ratio as 2:1."""
        return f"{value:g}:1" if self.is_ratio else f"{value:g}"

    def axis_unit(self):
        return "ratio" if self.is_ratio else self.unit


_BANDWIDTH_PARTS = {
    "inter_node": "inter-node bandwidth per link",
    "nic": "NIC bandwidth",
    "fabric": "fabric link bandwidth",
    "nvlink": "NVLink bandwidth per link",
    "nvswitch": "NVSwitch port bandwidth",
    "pcie": "PCIe bandwidth",
    "wan": "WAN bandwidth of each site",
}
# The title's words where they differ from the axis's (the figures of docs/studies.md).
_BANDWIDTH_SWEPT = {"inter_node": "inter-node bandwidth", "wan": "WAN bandwidth between sites"}
_LATENCY_PARTS = {"fabric": "fabric link latency", "nic": "NIC link latency", "wan": "WAN latency"}


def bandwidth(axis_name="inter-node bandwidth per link", swept="inter-node bandwidth"):
    return SweptQuantity("bandwidth", axis_name, "Gb/s", "bandwidth_Gbps", 8.0 / 1e9, True, "slowest",
                         f"Interconnect sizing: efficiency vs {swept}")


def of_column(column):
    """The quantity a dasim sweep column holds; one line and exit 2 for a column it cannot name."""
    if column.endswith("_bandwidth_Bps"):
        part = column[:-len("_bandwidth_Bps")]
        name = _BANDWIDTH_PARTS.get(part, part.replace("_", " ") + " bandwidth")
        return bandwidth(name, _BANDWIDTH_SWEPT.get(part, name))
    if column.endswith("_latency_s"):
        part = column[:-len("_latency_s")]
        name = _LATENCY_PARTS.get(part, part.replace("_", " ") + " latency")
        return SweptQuantity("latency", name, "us", "latency_us", 1e6, False, "largest",
                             f"Interconnect sizing: efficiency vs {name}")
    if column == "oversubscription":
        return SweptQuantity("oversubscription", "fat-tree oversubscription", ":1", "oversubscription",
                             1.0, False, "highest", "Interconnect sizing: efficiency vs fat-tree oversubscription")
    if column == "host_input_samples_per_s":
        return SweptQuantity("host input rate", "host input rate per node", "samples/s", "host_samples_per_s",
                             1.0, True, "slowest", "Host input sizing: efficiency vs what a node's host prepares",
                             log=False)
    fail(f"--column {column}: expected a dasim sweep column (<part>_bandwidth_Bps, <part>_latency_s, "
         "oversubscription or host_input_samples_per_s); --bandwidth-column takes a bandwidth under "
         "another name")


def for_values(quantity, largest):
    """The quantity in the unit its largest swept value reads best in: a latency of 1 ms and more
    (a WAN's) in ms, as `dasim run`'s summary says it, not in thousands of us."""
    if quantity.noun == "latency" and largest >= 1e-3:
        return replace(quantity, unit="ms", table_column="latency_ms", scale=1e3)
    return quantity
