// boat_mesh.hpp: a closed boat-shaped triangle mesh built in code, the way a game's
// asset would arrive: stations along the length, each a half-ellipse section closed
// by a flat deck, a transom at the stern and a narrow stem at the bow.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#ifndef CPP_ENGINE_BOAT_MESH_HPP
#define CPP_ENGINE_BOAT_MESH_HPP

#include "keel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace engine {

struct Mesh {
  std::vector<keel::Vec3> vertices;
  std::vector<uint32_t> indices;
};

// Body-local: bow towards +z, beam along x, y up; the deck at y = deck_height and the
// keel `depth` below it. Triangles wound outward (cross(b - a, c - a)).
inline Mesh make_boat(float length, float beam, float depth, float deck_height,
                      uint32_t stations = 16, uint32_t section_points = 10) {
  const double pi = 3.14159265358979323846;
  Mesh mesh;
  const uint32_t ring = section_points + 1;
  for (uint32_t i = 0; i < stations; ++i) {
    const double s = -1.0 + 2.0 * i / (stations - 1); // -1 stern, +1 bow
    // Full aft, a fine entry forward; the bow keeps a little width so that its cap is
    // a real polygon.
    const double taper = s < 0 ? 1.0 - 0.3 * s * s : std::max(0.08, std::sqrt(1.0 - s * s));
    const double half_beam = 0.5 * beam * taper;
    const double keel_depth = depth * (1.0 - 0.25 * s * s);
    const double z = 0.5 * length * s;
    for (uint32_t j = 0; j < ring; ++j) {
      const double t = -pi / 2 + pi * j / section_points;
      mesh.vertices.push_back({static_cast<float>(half_beam * std::sin(t)),
                               static_cast<float>(deck_height - keel_depth * std::cos(t)),
                               static_cast<float>(z)});
    }
  }
  auto at = [ring](uint32_t i, uint32_t j) { return i * ring + j; };
  auto triangle = [&mesh](uint32_t a, uint32_t b, uint32_t c) {
    mesh.indices.insert(mesh.indices.end(), {a, b, c});
  };
  for (uint32_t i = 0; i + 1 < stations; ++i) {
    for (uint32_t j = 0; j + 1 < ring; ++j) { // the hull's skin
      triangle(at(i, j), at(i, j + 1), at(i + 1, j + 1));
      triangle(at(i, j), at(i + 1, j + 1), at(i + 1, j));
    }
    const uint32_t port = 0, starboard = section_points; // the deck between the sheers
    triangle(at(i, port), at(i + 1, port), at(i + 1, starboard));
    triangle(at(i, port), at(i + 1, starboard), at(i, starboard));
  }
  for (uint32_t j = 1; j + 1 < ring; ++j) { // transom and stem: fans of a convex section
    triangle(at(0, 0), at(0, j + 1), at(0, j));
    triangle(at(stations - 1, 0), at(stations - 1, j), at(stations - 1, j + 1));
  }
  return mesh;
}

} // namespace engine

#endif
