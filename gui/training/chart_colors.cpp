#include "gui/training/chart_colors.h"

#include <array>
#include <cmath>

namespace netsmith::gui {

namespace {

// sRGB (0..1) to linear light.
double linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

double labF(double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16) / 116; }

std::array<double, 3> lab(const QColor& color) {
  const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
  // sRGB to XYZ, normalised by the D65 white point.
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const double fx = labF(x), fy = labF(y), fz = labF(z);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

}  // namespace

QColor trainColor() { return {0x1f, 0x77, 0xb4}; }
QColor validationColor() { return {0xd6, 0x27, 0x28}; }
QColor errorColor() { return {0x2c, 0xa0, 0x2c}; }

QColor deviceColor(int i) {
  static const QColor palette[] = {{0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c}, {0xd6, 0x27, 0x28},
                                   {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b}, {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f},
                                   {0xbc, 0xbd, 0x22}, {0x17, 0xbe, 0xcf}};
  return palette[i % 10];
}

QColor overlayColor(int slot) {
  // Note [Chart colours]: orange, violet, cyan, magenta, brown, olive, near-black, light grey:
  // pairwise at least 36 apart, and at least 40 from the current run's three (tst_training_charts).
  static const QColor palette[kOverlayColors] = {{0xff, 0x7f, 0x0e}, {0x7b, 0x2f, 0xbe}, {0x17, 0xbe, 0xcf},
                                                 {0xe7, 0x29, 0x8a}, {0x8c, 0x56, 0x4b}, {0xbc, 0xbd, 0x22},
                                                 {0x22, 0x22, 0x22}, {0xa6, 0xa6, 0xa6}};
  return palette[((slot % kOverlayColors) + kOverlayColors) % kOverlayColors];
}

double colorDistance(const QColor& a, const QColor& b) {
  const auto p = lab(a), q = lab(b);
  return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

}  // namespace netsmith::gui
