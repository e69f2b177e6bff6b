// Global-norm gradient clipping traffic (see grad_clip.hpp).
#include "workload/grad_clip.hpp"

namespace dasim::workload {

int clip_streams(GradClip clip) {
  switch (clip) {
    case GradClip::none:
      return 0;
    case GradClip::norm:
      return 1;  // read every gradient
    case GradClip::norm_and_scale:
      return 3;  // + read and write every gradient
  }
  return 0;
}

int clip_kernels(GradClip clip) {
  switch (clip) {
    case GradClip::none:
      return 0;
    case GradClip::norm:
      return 2;  // partial sums, then the cleanup kernel that adds them
    case GradClip::norm_and_scale:
      return 3;
  }
  return 0;
}

std::string to_string(GradClip clip) {
  return std::string(kGradClipNames.name(clip));
}

GradClip parse_grad_clip(const std::string& text, const std::string& file, const std::string& json_path) {
  return parse_named(kGradClipNames, text, "--grad-clip", file, json_path);
}

}  // namespace dasim::workload
