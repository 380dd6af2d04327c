// Converters of ONNX Resize (opsets 10 to 18) and Upsample (7 to 9) to Netsmith's Interpolate
// (Note [Resize import]).
#include <cmath>

#include "engine/core/error.h"
#include "engine/import/onnx/onnx_constants.h"
#include "engine/import/onnx/onnx_import_context.h"

namespace netsmith::onnx_import {
namespace {

// Note [Resize import]
// Interpolate resizes height and width to output_size with nnabla's coordinate rules (Note
// [Interpolate coordinates], engine/ops/interpolate/cuda_math.h). Those are ONNX Resize's
//   - linear: align_corners; pytorch_half_pixel (= half_pixel except for an output of size 1,
//     which ONNX's half_pixel reads at the input's middle: refused there); asymmetric;
//   - nearest with nearest_mode floor: asymmetric, tf_half_pixel_for_nn (half_pixel).
// Resize before opset 11 and Upsample have no coordinate mode: asymmetric, nearest rounding down.
// The output size is `sizes` (its batch entry open, its channel entry the input's), or
// floor(size · scale): ONNX then maps coordinates with the scale given, nnabla with out / in, which
// agree only when size · scale is whole, so a scale that is not is refused. Cubic, antialias,
// tf_crop_and_resize, rounding other than floor and aspect-ratio policies have no Netsmith form.
void resize(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  if (x.shape.size() != 3)
    c.unsupported(n, format("of a ({}) input: Netsmith's Interpolate resizes (channels, height, width)", shapeToString(x.shape)));
  const bool upsample = n.opType == "Upsample";
  const bool modern = !upsample && c.opset() >= 11;
  std::string mode = c.stringAttr(n, "mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-7's spelling
  if (mode != "linear" && mode != "nearest")
    c.unsupported(n, format("in mode '{}': Netsmith interpolates linear or nearest", mode));
  const std::string transform = modern ? c.stringAttr(n, "coordinate_transformation_mode", "half_pixel") : "asymmetric";
  const std::string rounding = modern ? c.stringAttr(n, "nearest_mode", "round_prefer_floor") : "floor";
  if (c.intAttr(n, "antialias", 0) != 0) c.unsupported(n, "with antialias: Netsmith's Interpolate samples without a filter");
  const std::string policy = c.stringAttr(n, "keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch") c.unsupported(n, format("with keep_aspect_ratio_policy '{}'", policy));
  std::vector<int64_t> axes = c.intsAttr(n, "axes", {});
  for (int64_t& a : axes)
    if (a < 0) a += 4;
  if (!axes.empty() && axes != std::vector<int64_t>{2, 3})
    c.unsupported(n, format("over axes ({}): Netsmith's Interpolate resizes height and width (2, 3)", dimsText(axes)));
  const size_t given = axes.empty() ? 4 : 2, first = axes.empty() ? 2 : 0;

  // The output size: sizes (Resize 11+, input 3) or scales (Resize 11+ input 2, Resize 10 and
  // Upsample 9 input 1, Upsample 7 attribute).
  std::vector<int64_t> out(2);
  const size_t sizesInput = 3, scalesInput = modern ? 2 : 1;
  if (modern && c.present(n, sizesInput) && c.constant(n, sizesInput, "sizes").count() > 0) {
    const OnnxTensor& sizes = c.constant(n, sizesInput, "sizes");
    if (static_cast<size_t>(sizes.count()) != given || sizes.isFloat)
      c.fail(n, format("its sizes ({}) are not {} integers", dimsText(sizes.ints), given));
    if (given == 4 && sizes.ints[1] != x.shape[0])
      c.unsupported(n, format("to {} channels from {}: Interpolate keeps the channels", sizes.ints[1], x.shape[0]));
    out = {sizes.ints[first], sizes.ints[first + 1]};
  } else {
    std::vector<double> scales;
    if (upsample && c.opset() < 9) {
      for (float f : n.attr("scales") ? n.attr("scales")->floats : std::vector<float>{}) scales.push_back(f);
    } else {
      const OnnxTensor& t = c.constant(n, scalesInput, "scales");
      for (int64_t i = 0; i < t.count(); ++i) scales.push_back(t.real(i));
    }
    if (scales.size() != given) c.fail(n, format("has {} scales for a rank-4 input; {} expected", scales.size(), given));
    if (given == 4 && (scales[0] != 1 || scales[1] != 1))
      c.unsupported(n, format("with scales {} and {} on the batch and channel axes", scales[0], scales[1]));
    for (int a = 0; a < 2; ++a) {
      const double exact = static_cast<double>(x.shape[1 + a]) * scales[first + a];
      out[a] = static_cast<int64_t>(std::floor(exact));
      if (std::fabs(exact - std::round(exact)) > 1e-9 * std::max(1.0, exact))
        c.unsupported(n, format("with scale {} on a size of {} ({} values): ONNX then places its samples by the scale "
                                "and Netsmith by the whole output size; give sizes instead",
                                scales[first + a], x.shape[1 + a], exact));
      out[a] = static_cast<int64_t>(std::round(exact));
    }
  }
  if (out[0] < 1 || out[1] < 1) c.fail(n, format("resizes to {}x{}", out[0], out[1]));

  bool corners = false, half = false;
  if (mode == "linear") {
    if (transform == "align_corners") corners = true;
    else if (transform == "pytorch_half_pixel") half = true;
    else if (transform == "half_pixel") {
      half = true;
      for (int a = 0; a < 2; ++a)
        if (out[a] == 1 && x.shape[1 + a] != 1)
          c.unsupported(n, "in half_pixel mode to a size of 1: ONNX reads the input's middle, Netsmith its first value "
                           "(pytorch_half_pixel)");
    } else if (transform != "asymmetric") {
      c.unsupported(n, format("linear with coordinate_transformation_mode '{}'", transform));
    }
  } else {
    if (rounding != "floor")
      c.unsupported(n, format("nearest with nearest_mode '{}': Netsmith's nearest rounds down (floor)", rounding));
    if (transform == "tf_half_pixel_for_nn") half = true;
    else if (transform != "asymmetric")
      c.unsupported(n, format("nearest with coordinate_transformation_mode '{}': Netsmith's are asymmetric and "
                              "tf_half_pixel_for_nn",
                              transform));
  }
  c.addLayer(n, "Interpolate", {&x},
             {{"output_size", out}, {"mode", mode}, {"align_corners", corners}, {"half_pixel", half}});
}

}  // namespace

void addResizeConverters(ConverterTable& t) {
  t["Resize"] = resize;
  t["Upsample"] = resize;
}

}  // namespace netsmith::onnx_import
