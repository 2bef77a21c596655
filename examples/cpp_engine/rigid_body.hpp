// rigid_body.hpp: the engine's side of the contract. Keel returns forces and torques;
// integrating them is the host engine's job, so this example carries the small rigid
// body integrator a game engine has (semi-implicit Euler, world inertia from principal
// moments, quaternion orientation), in double precision.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#ifndef CPP_ENGINE_RIGID_BODY_HPP
#define CPP_ENGINE_RIGID_BODY_HPP

#include "keel.hpp"

#include <cmath>

namespace engine {

struct V3 {
  double x = 0, y = 0, z = 0;
};
inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator*(V3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(V3 a, V3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(V3 a) { return std::sqrt(dot(a, a)); }
inline bool finite(V3 a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); }

// Unit quaternion, body to world.
struct Q {
  double x = 0, y = 0, z = 0, w = 1;
};
inline Q operator*(Q a, Q b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
          a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Q normalized(Q q) {
  const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x / n, q.y / n, q.z / n, q.w / n};
}
inline V3 rotate(Q q, V3 v) {
  const V3 u{q.x, q.y, q.z};
  const V3 t = cross(u, v) * 2.0;
  return v + t * q.w + cross(u, t);
}
inline Q axis_angle(V3 axis, double angle) {
  const V3 a = axis * (std::sin(angle / 2) / length(axis));
  return {a.x, a.y, a.z, std::cos(angle / 2)};
}

// Row-major 3x3.
struct M3 {
  double m[3][3] = {};
};
inline M3 rotation_matrix(Q q) {
  M3 r;
  const V3 ex = rotate(q, {1, 0, 0}), ey = rotate(q, {0, 1, 0}), ez = rotate(q, {0, 0, 1});
  const V3 cols[3] = {ex, ey, ez};
  for (int c = 0; c < 3; ++c) {
    r.m[0][c] = cols[c].x;
    r.m[1][c] = cols[c].y;
    r.m[2][c] = cols[c].z;
  }
  return r;
}
inline V3 operator*(const M3 &a, V3 v) {
  return {a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
          a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
          a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}
inline M3 transposed(const M3 &a) {
  M3 t;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t.m[i][j] = a.m[j][i];
  return t;
}

inline V3 v3(keel::Vec3 v) { return {v.x, v.y, v.z}; }
inline keel::Vec3 kv(V3 v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}
inline Q q4(keel::Quat q) { return {q.x, q.y, q.z, q.w}; }
inline keel::Quat kq(Q q) {
  return {static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z),
          static_cast<float>(q.w)};
}

// A rigid body as an engine keeps it: the centre of mass moves, the body origin follows.
struct RigidBody {
  double mass = 1;
  V3 principal_inertia{1, 1, 1}; // kg m^2, about the centre of mass
  Q inertia_rotation;            // principal axes -> body axes (Unity's convention)
  V3 center_of_mass_local;       // body-local
  V3 center_of_mass;             // world
  Q rotation;                    // body -> world
  V3 velocity;                   // of the centre of mass, world
  V3 angular_velocity;           // world axes

  V3 position() const { return center_of_mass - rotate(rotation, center_of_mass_local); }
  V3 up() const { return rotate(rotation, {0, 1, 0}); }

  keel::BodyState state() const {
    keel::BodyState s{};
    s.position = kv(position());
    s.rotation = kq(rotation);
    s.linear_velocity = kv(velocity);
    s.angular_velocity = kv(angular_velocity);
    s.center_of_mass = kv(center_of_mass);
    return s;
  }

  // Places the body at a pose keel computed (keel_body_find_equilibrium).
  void set_pose(const keel::BodyState &s) {
    rotation = normalized(q4(s.rotation));
    center_of_mass = v3(s.position) + rotate(rotation, center_of_mass_local);
    velocity = v3(s.linear_velocity);
    angular_velocity = v3(s.angular_velocity);
  }

  // World-axes inverse inertia applied to a vector: I_w^-1 t = A diag(1/I) A^T t with
  // A the principal axes in world.
  V3 solve_inertia(V3 t) const {
    const M3 a = rotation_matrix(rotation * inertia_rotation);
    V3 p = transposed(a) * t;
    p = {p.x / principal_inertia.x, p.y / principal_inertia.y, p.z / principal_inertia.z};
    return a * p;
  }
  V3 apply_inertia(V3 w) const {
    const M3 a = rotation_matrix(rotation * inertia_rotation);
    V3 p = transposed(a) * w;
    p = {p.x * principal_inertia.x, p.y * principal_inertia.y, p.z * principal_inertia.z};
    return a * p;
  }

  // Semi-implicit Euler: velocities from this step's forces first, then positions from
  // the new velocities (stable for the stiff buoyancy spring where explicit Euler
  // gains energy). Gravity is the engine's: keel's forces exclude it.
  void integrate(V3 force, V3 torque, V3 gravity, double dt) {
    velocity = velocity + (force * (1.0 / mass) + gravity) * dt;
    const V3 gyroscopic = cross(angular_velocity, apply_inertia(angular_velocity));
    angular_velocity = angular_velocity + solve_inertia(torque - gyroscopic) * dt;
    center_of_mass = center_of_mass + velocity * dt;
    const Q spin{angular_velocity.x, angular_velocity.y, angular_velocity.z, 0.0};
    const Q dq = spin * rotation;
    rotation = normalized({rotation.x + 0.5 * dt * dq.x, rotation.y + 0.5 * dt * dq.y,
                           rotation.z + 0.5 * dt * dq.z, rotation.w + 0.5 * dt * dq.w});
  }
};

} // namespace engine

#endif
