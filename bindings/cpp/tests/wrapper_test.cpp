// wrapper_test.cpp: checks keel.hpp against the native library. Built twice by
// tests/cpp.rs: with exceptions, and with -fno-exceptions -DKEEL_NO_EXCEPTIONS.
//
// Ownership is judged through the ABI itself (keel_live_world_count,
// keel_world_get_counts), not through the wrapper's own bookkeeping. Prints every failed
// check with file:line, then one closing line "N passed, M failed"; exits nonzero if any
// check failed.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#include "keel.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

int g_checks = 0;
int g_failures = 0;

void check_at(bool ok, const char *expr, const char *file, int line) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    std::printf("%s:%d: FAILED: %s (keel: \"%s\")\n", file, line, expr,
                keel::last_error_message().c_str());
  }
}

#define CHECK(cond) check_at(static_cast<bool>(cond), #cond, __FILE__, __LINE__)

// A call expected to succeed, in either error mode (a throw lands in main's handler).
#define CHECK_OK(call)                                                                     \
  do {                                                                                     \
    const keel::Status status_ = (call);                                                   \
    check_at(status_.ok(), #call, __FILE__, __LINE__);                                     \
  } while (0)

// Whatever the mode, a failing call gives its status and native message here.
template <class Call>
keel::Status outcome(Call call) {
#ifndef KEEL_NO_EXCEPTIONS
  try {
    call();
  } catch (const keel::Error &e) {
    return keel::Status(e.code(), e.what());
  }
  return keel::Status();
#else
  return call();
#endif
}

keel::World make_world() {
  keel::WorldDesc desc = keel::default_world_desc();
  desc.thread_count = 1;
  keel::World world;
  CHECK_OK(keel::World::create(desc, world));
  return world;
}

keel::Vec3 box_size() { return {2.0f, 0.6f, 2.0f}; }

uint32_t hull_count(const keel::World &world) {
  keel::WorldCounts counts{};
  CHECK_OK(world.counts(counts));
  return counts.hull_count;
}

uint32_t body_count(const keel::World &world) {
  keel::WorldCounts counts{};
  CHECK_OK(world.counts(counts));
  return counts.body_count;
}

// ---- Ownership: the owners free exactly what they own, once.

static_assert(!std::is_copy_constructible_v<keel::World> && !std::is_copy_assignable_v<keel::World>);
static_assert(!std::is_copy_constructible_v<keel::Hull> && !std::is_copy_assignable_v<keel::Hull>);
static_assert(!std::is_copy_constructible_v<keel::Body> && !std::is_copy_assignable_v<keel::Body>);
static_assert(std::is_nothrow_move_constructible_v<keel::World> &&
              std::is_nothrow_move_assignable_v<keel::World>);
static_assert(std::is_nothrow_move_constructible_v<keel::Hull> &&
              std::is_nothrow_move_assignable_v<keel::Hull>);
static_assert(std::is_nothrow_move_constructible_v<keel::Body> &&
              std::is_nothrow_move_assignable_v<keel::Body>);

void test_raii_releases_through_the_abi() {
  const uint32_t worlds_before = keel::live_world_count();
  {
    keel::World world = make_world();
    CHECK(world);
    CHECK(keel::live_world_count() == worlds_before + 1);
    {
      keel::Hull hull;
      CHECK_OK(keel::Hull::create_box(world, box_size(), hull));
      CHECK(hull_count(world) == 1);
      {
        keel::BodyDesc desc = keel::default_body_desc();
        desc.hull = hull.handle();
        desc.mass = 1200.0f;
        keel::Body body;
        CHECK_OK(keel::Body::create(world, desc, body));
        CHECK(body_count(world) == 1);
      }
      CHECK(body_count(world) == 0);
      CHECK(hull_count(world) == 1);
    }
    CHECK(hull_count(world) == 0);
  }
  CHECK(keel::live_world_count() == worlds_before);
}

void test_move_semantics() {
  const uint32_t worlds_before = keel::live_world_count();
  keel::World world = make_world();
  const KeelWorld world_handle = world.handle();

  keel::Hull a;
  CHECK_OK(keel::Hull::create_box(world, box_size(), a));
  const KeelHull a_handle = a.handle();
  keel::Hull b(std::move(a));
  CHECK(!a && a.handle() == 0);
  CHECK(b.handle() == a_handle && b.world() == world_handle);
  CHECK(hull_count(world) == 1);

  // Move-assigning over an owner destroys what it held.
  keel::Hull c;
  CHECK_OK(keel::Hull::create_box(world, {1.0f, 1.0f, 1.0f}, c));
  CHECK(hull_count(world) == 2);
  c = std::move(b);
  CHECK(hull_count(world) == 1);
  CHECK(c.handle() == a_handle && !b);
  keel::Hull &alias = c;
  c = std::move(alias); // self-move keeps the hull
  CHECK(c.handle() == a_handle && hull_count(world) == 1);

  // A released handle survives its owner; the caller destroys it.
  KeelHull released = 0;
  {
    keel::Hull d;
    CHECK_OK(keel::Hull::create_box(world, box_size(), d));
    released = d.release();
    CHECK(!d);
  }
  CHECK(hull_count(world) == 2);
  CHECK(keel_hull_destroy(world.handle(), released) == KEEL_OK);
  CHECK(hull_count(world) == 1);

  // Moving the world moves ownership, not the world.
  keel::World moved(std::move(world));
  CHECK(!world && moved.handle() == world_handle);
  CHECK(keel::live_world_count() == worlds_before + 1);
  keel::World other = make_world();
  CHECK(keel::live_world_count() == worlds_before + 2);
  other = std::move(moved);
  CHECK(keel::live_world_count() == worlds_before + 1);
  CHECK(other.handle() == world_handle && hull_count(other) == 1);

  // Adopted C handles are owned like created ones.
  {
    KeelWorld raw = 0;
    keel::WorldDesc desc = keel::default_world_desc();
    CHECK(keel_world_create(&desc, &raw) == KEEL_OK);
    keel::World adopted = keel::World::adopt(raw);
    CHECK(keel::live_world_count() == worlds_before + 2);
  }
  CHECK(keel::live_world_count() == worlds_before + 1);
  c.reset();
  CHECK(hull_count(other) == 0);
  other.reset();
  CHECK(keel::live_world_count() == worlds_before);
}

// ---- Errors: the native status and message reach the caller, in either mode.

void test_errors_carry_the_native_message() {
  keel::World world = make_world();
  const std::vector<keel::Vec3> vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const std::vector<uint32_t> out_of_range = {0, 1, 7};
  keel::Hull hull;
  const keel::Status bad_mesh = outcome([&] {
#ifndef KEEL_NO_EXCEPTIONS
    hull = keel::Hull::create(world, vertices, out_of_range);
    return;
#else
    return keel::Hull::create(world, vertices, out_of_range, false, hull);
#endif
  });
  CHECK(bad_mesh.code() == KEEL_ERROR_INVALID_MESH);
  CHECK(bad_mesh.message() == keel::last_error_message());
  CHECK(bad_mesh.message().find("keel_hull_create") != std::string::npos);
  CHECK(!hull && hull_count(world) == 0);

  // A handle of no world.
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = 12345;
  keel::Body body;
  const keel::Status bad_hull = outcome([&]() -> keel::Status { return keel::Body::create(world, desc, body); });
  CHECK(bad_hull.code() == KEEL_ERROR_INVALID_HANDLE);
  CHECK(!bad_hull.message().empty() && bad_hull.message() == keel::last_error_message());
  CHECK(!body);

  // A check of the wrapper's own, before keel is called: outputs smaller than the input.
  const std::array<keel::Vec3, 2> points = {{{0, 0, 0}, {1, 0, 1}}};
  std::array<float, 1> heights{};
  const keel::Status small = outcome([&]() -> keel::Status { return world.sample_water(points, heights); });
  CHECK(small.code() == KEEL_ERROR_BUFFER_TOO_SMALL);
  CHECK(small.message().find("keel_water_sample") != std::string::npos);

  // A failed create leaves the target owner as it was.
  keel::Hull kept;
  CHECK_OK(keel::Hull::create_box(world, box_size(), kept));
  const KeelHull kept_handle = kept.handle();
  const std::vector<uint32_t> not_triangles = {0, 1};
  const keel::Status refused = outcome([&]() -> keel::Status {
    return keel::Hull::create(world, vertices, not_triangles, false, kept);
  });
  CHECK(refused.code() == KEEL_ERROR_INVALID_MESH);
  CHECK(kept.handle() == kept_handle && hull_count(world) == 1);

#ifdef KEEL_NO_EXCEPTIONS
  // The mode's own contract: a Status that converts to false, nothing thrown.
  keel::Status status = keel::World().set_time(1.0);
  CHECK(!status && status.code() == KEEL_ERROR_INVALID_HANDLE);
#else
  bool thrown = false;
  try {
    keel::World().set_time(1.0);
  } catch (const keel::Error &e) {
    thrown = e.code() == KEEL_ERROR_INVALID_HANDLE && std::string(e.what()).find("keel_world_set_time") == 0;
  }
  CHECK(thrown);
#endif
}

// ---- Stepping and the detail getters (two-call pattern).

// The moment of inertia about body axis `axis`: sum over principal axes k of
// moment_k (e_axis . R e_k)^2.
double body_axis_moment(const keel::Inertia &inertia, int axis) {
  const keel::Quat q = inertia.rotation;
  const double moments[3] = {inertia.principal.x, inertia.principal.y, inertia.principal.z};
  double sum = 0;
  for (int k = 0; k < 3; ++k) {
    double v[3] = {0, 0, 0};
    v[k] = 1;
    // v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
    const double u[3] = {q.x, q.y, q.z};
    const double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                         2 * (u[0] * v[1] - u[1] * v[0])};
    const double r[3] = {v[0] + q.w * t[0] + (u[1] * t[2] - u[2] * t[1]),
                         v[1] + q.w * t[1] + (u[2] * t[0] - u[0] * t[2]),
                         v[2] + q.w * t[2] + (u[0] * t[1] - u[1] * t[0])};
    sum += moments[k] * r[axis] * r[axis];
  }
  return sum;
}

void test_steps_and_detail_getters() {
  keel::World world = make_world();
  keel::Hull hull;
  CHECK_OK(keel::Hull::create_box(world, box_size(), hull));
  keel::Inertia inertia{};
  CHECK_OK(hull.inertia(1200.0f, inertia));
  // A 2 x 0.6 x 2 box: I = m (b^2 + c^2) / 12 about each axis, the body-axes tensor
  // being R diag(principal) R^T with R the returned rotation.
  const double expected[3] = {1200.0 * (0.36 + 4.0) / 12.0, 1200.0 * 8.0 / 12.0,
                              1200.0 * (4.0 + 0.36) / 12.0};
  for (int axis = 0; axis < 3; ++axis) {
    CHECK(std::fabs(body_axis_moment(inertia, axis) - expected[axis]) < 1e-3 * expected[axis]);
  }
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = hull.handle();
  desc.mass = 1200.0f;
  keel::Body body;
  keel::Body twin;
  CHECK_OK(keel::Body::create(world, desc, body));
  CHECK_OK(keel::Body::create(world, desc, twin));
  keel::BodyDesc read_back{};
  CHECK_OK(body.desc(read_back));
  CHECK(read_back.hull == hull.handle() && read_back.mass == 1200.0f);

  // At the Archimedes draft (0.3 m), tilted so that the waterline is not trivial.
  keel::BodyState state{};
  state.rotation = {std::sin(0.05f), 0.0f, 0.0f, std::cos(0.05f)};
  state.linear_velocity = {0.2f, -0.1f, 0.0f};
  keel::BodyForces forces{};
  CHECK_OK(body.step(state, 1.0f / 60.0f, forces));
  CHECK(forces.submerged_triangle_count > 0);

  std::vector<keel::TriangleForce> pairs;
  CHECK_OK(body.triangle_forces(pairs));
  uint32_t native = 0;
  CHECK(keel_body_get_triangle_forces(world.handle(), body.handle(), nullptr, 0, &native) == KEEL_OK);
  CHECK(!pairs.empty() && pairs.size() == native);
  double sum_y = 0;
  for (const keel::TriangleForce &p : pairs) {
    sum_y += p.force.y;
  }
  CHECK(std::fabs(sum_y - forces.force.y) <= 1e-3 * std::fabs(forces.force.y));

  std::vector<keel::Vec3> wet, dry, line;
  CHECK_OK(body.submerged_triangles(wet));
  CHECK_OK(body.emerged_triangles(dry));
  CHECK_OK(body.waterline(line));
  CHECK(wet.size() == 3u * forces.submerged_triangle_count);
  CHECK(!dry.empty() && dry.size() % 3 == 0);
  CHECK(!line.empty() && line.size() % 2 == 0);
  for (const keel::Vec3 &p : line) {
    CHECK(std::fabs(p.y) < 1e-4f); // the waterline lies on the flat water
  }

  // The vector's storage is reused when it is big enough.
  line.reserve(line.size() + 64);
  const keel::Vec3 *storage = line.data();
  CHECK_OK(body.waterline(line));
  CHECK(line.data() == storage);

  // The batch step gives what the single one gave, for a body of the same (fresh) history.
  const std::array<keel::BodyState, 2> states = {state, state};
  std::array<keel::BodyForces, 2> batch{};
  keel::Body again;
  CHECK_OK(keel::Body::create(world, desc, again));
  const std::array<KeelBody, 1> one = {again.handle()};
  CHECK_OK(world.step(one, keel::Span<const keel::BodyState>(states.data(), 1), 1.0f / 60.0f, batch));
  CHECK(std::fabs(batch[0].force.y - forces.force.y) <= 1e-4f * std::fabs(forces.force.y));
  // States and bodies must pair up; the wrapper says so before keel is asked.
  const std::array<KeelBody, 2> two = {body.handle(), twin.handle()};
  const keel::Status mismatch = outcome([&]() -> keel::Status {
    return world.step(two, keel::Span<const keel::BodyState>(states.data(), 1), 1.0f / 60.0f, batch);
  });
  CHECK(mismatch.code() == KEEL_ERROR_INVALID_ARGUMENT);
  CHECK(body_count(world) == 3);
}

// ---- Water: spans, brace lists and the owned callable.

void test_water() {
  keel::World world = make_world();
  keel::GerstnerWave wave{};
  wave.amplitude = 0.5f;
  wave.wavelength = 20.0f;
  wave.direction_x = 1.0f;
  wave.steepness = 0.2f;
  CHECK_OK(world.set_water_gerstner({wave, wave}, 1.0f));
  const std::vector<keel::Vec3> points = {{0, 0, 0}, {5, 0, 0}, {10, 0, 3}};
  std::vector<float> heights(points.size());
  std::vector<keel::Vec3> normals(points.size());
  CHECK_OK(world.sample_water(points, heights, normals));
  for (std::size_t i = 0; i < points.size(); ++i) {
    CHECK(std::fabs(heights[i] - 1.0f) <= 1.0f + 1e-4f); // two waves of 0.5 m about 1 m
    CHECK(std::fabs(normals[i].x * normals[i].x + normals[i].y * normals[i].y +
                    normals[i].z * normals[i].z - 1.0f) < 1e-4f);
  }

  // A callable the World keeps alive, and moves with it.
  int calls = 0;
  CHECK_OK(world.set_water([&calls](const keel::Vec3 *, uint32_t count, float *out, keel::Vec3 *,
                                    keel::Vec3 *) {
    ++calls;
    for (uint32_t i = 0; i < count; ++i) {
      out[i] = 0.75f;
    }
  }));
  keel::World moved = std::move(world);
  std::array<float, 3> three{};
  CHECK_OK(moved.sample_water(points, three));
  CHECK(calls == 1 && three[0] == 0.75f && three[2] == 0.75f);
  CHECK_OK(moved.set_water_flat(0.25f));
  CHECK_OK(moved.sample_water(points, three));
  CHECK(calls == 1 && three[1] == 0.25f);

  const std::array<float, 4> grid = {0.0f, 1.0f, 0.0f, 1.0f};
  CHECK_OK(moved.set_water_heightfield(grid, 2, 2, 0.0f, 0.0f, 1.0f));
  CHECK_OK(moved.set_water_tiled_heightfield(grid, 2, 2, 0.0f, 0.0f, 1.0f));
  const keel::Status short_grid = outcome([&]() -> keel::Status {
    return moved.set_water_heightfield(grid, 3, 2, 0.0f, 0.0f, 1.0f);
  });
  CHECK(short_grid.code() == KEEL_ERROR_INVALID_ARGUMENT);
  CHECK_OK(moved.set_water_perlin());
  CHECK_OK(moved.set_water_spectrum(KEEL_SPECTRUM_JONSWAP, 8.0f, 1.0f, 0.0f, 16, 7));
  CHECK_OK(moved.set_time(2.5));
  CHECK_OK(moved.set_wind({3.0f, 0.0f, 0.0f}));
  CHECK_OK(moved.set_current({0.5f, 0.0f, 0.0f}));

#ifndef KEEL_NO_EXCEPTIONS
  // An exception in the host's water fails the step that asked instead of unwinding
  // through the C library.
  CHECK_OK(moved.set_water([](const keel::Vec3 *, uint32_t, float *, keel::Vec3 *, keel::Vec3 *) {
    throw std::runtime_error("the ocean is not loaded");
  }));
  const keel::Status thrown = outcome([&] { (void)moved.water_height({0, 0, 0}); });
  CHECK(thrown.code() == KEEL_ERROR_INVALID_ARGUMENT);
#endif
}

void test_equilibrium() {
  keel::World world = make_world();
  keel::Hull hull;
  CHECK_OK(keel::Hull::create_box(world, box_size(), hull));
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = hull.handle();
  desc.mass = 1200.0f;
  keel::Body body;
  CHECK_OK(keel::Body::create(world, desc, body));
  keel::BodyState state{};
  state.rotation.w = 1.0f;
  state.position = {3.0f, 2.0f, -1.0f};
  CHECK_OK(body.find_equilibrium({0.0f, 0.0f, 0.0f}, state));
  CHECK(std::fabs(state.position.y) < 3e-3f); // centre at the water: the draft is 0.3 m
  CHECK(state.position.x == 3.0f && state.position.z == -1.0f);
  CHECK(std::fabs(state.rotation.w) > 0.9999f); // upright: the barge is stable
#ifndef KEEL_NO_EXCEPTIONS
  keel::BodyState start{};
  start.rotation.w = 1.0f;
  start.position = {3.0f, 2.0f, -1.0f};
  CHECK(body.equilibrium({0.0f, 0.0f, 0.0f}, start).position.y == state.position.y);
#endif

  // Too heavy to float: the native message comes through.
  desc.mass = 5000.0f; // the whole box displaces 2400 kg
  CHECK_OK(body.set_desc(desc));
  const keel::Status sinks = outcome([&]() -> keel::Status {
    return body.find_equilibrium({0.0f, 0.0f, 0.0f}, state);
  });
  CHECK(sinks.code() == KEEL_ERROR_INVALID_ARGUMENT);
  CHECK(sinks.message().find("keel_body_find_equilibrium") != std::string::npos);
}

// ---- Rollback, the state hash, the origin and the host's job system.

// A barge on a Gerstner sea (slamming history matters there) with its hull and body.
struct Scene {
  keel::World world;
  keel::Hull hull;
  std::vector<keel::Body> bodies;
};

void fill(Scene &scene, const keel::WorldDesc &world_desc, std::size_t body_count) {
  CHECK_OK(keel::World::create(world_desc, scene.world));
  keel::GerstnerWave wave{};
  wave.amplitude = 0.4f;
  wave.wavelength = 12.0f;
  wave.direction_x = 1.0f;
  wave.steepness = 0.3f;
  CHECK_OK(scene.world.set_water_gerstner({wave}));
  CHECK_OK(keel::Hull::create_box(scene.world, box_size(), scene.hull));
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = scene.hull.handle();
  desc.mass = 1200.0f;
  scene.bodies.resize(body_count);
  for (keel::Body &body : scene.bodies) {
    CHECK_OK(keel::Body::create(scene.world, desc, body));
  }
}

// Body i's state at step k: heaving and pitching, so that the wet area keeps changing.
keel::BodyState moving_state(std::size_t i, int k) {
  keel::BodyState state{};
  const float t = static_cast<float>(k) / 60.0f;
  const float half_pitch = 0.1f * std::sin(2.0f * t + static_cast<float>(i));
  state.rotation = {std::sin(half_pitch), 0.0f, 0.0f, std::cos(half_pitch)};
  state.position = {3.0f * static_cast<float>(i), 0.25f * std::sin(3.0f * t), 0.0f};
  state.linear_velocity = {1.0f, 0.75f * std::cos(3.0f * t), 0.0f};
  state.angular_velocity = {0.2f * std::cos(2.0f * t + static_cast<float>(i)), 0.0f, 0.0f};
  state.center_of_mass = state.position;
  return state;
}

// Steps k = first .. first + count - 1 of every body in one batch; the forces in order.
std::vector<keel::BodyForces> run(Scene &scene, int first, int count) {
  std::vector<KeelBody> handles;
  for (const keel::Body &body : scene.bodies) {
    handles.push_back(body.handle());
  }
  std::vector<keel::BodyForces> all;
  std::vector<keel::BodyState> states(handles.size());
  std::vector<keel::BodyForces> forces(handles.size());
  for (int k = first; k < first + count; ++k) {
    CHECK_OK(scene.world.set_time(k / 60.0));
    for (std::size_t i = 0; i < handles.size(); ++i) {
      states[i] = moving_state(i, k);
    }
    CHECK_OK(scene.world.step(handles, states, 1.0f / 60.0f, forces));
    all.insert(all.end(), forces.begin(), forces.end());
  }
  return all;
}

bool same_bits(const std::vector<keel::BodyForces> &a, const std::vector<keel::BodyForces> &b) {
  return !a.empty() && a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(keel::BodyForces)) == 0;
}

uint64_t hash_of(const keel::World &world) {
  uint64_t hash = 0;
  CHECK_OK(world.state_hash(hash));
  return hash;
}

void test_world_snapshot_replays_the_same_bits() {
  Scene scene;
  fill(scene, keel::default_world_desc(), 3);
  (void)run(scene, 0, 10);
  std::vector<uint8_t> saved;
  CHECK_OK(scene.world.snapshot(saved));
  CHECK(!saved.empty());
  const uint64_t hash_saved = hash_of(scene.world);
  const std::vector<keel::BodyForces> first = run(scene, 10, 20);
  const uint64_t hash_after = hash_of(scene.world);
  CHECK(hash_after != hash_saved); // the steps changed the slamming history
  std::vector<uint8_t> after_first;
  CHECK_OK(scene.world.snapshot(after_first));

  CHECK_OK(scene.world.restore(saved));
  CHECK(hash_of(scene.world) == hash_saved);
  const std::vector<keel::BodyForces> again = run(scene, 10, 20);
  CHECK(same_bits(first, again));
  CHECK(hash_of(scene.world) == hash_after);
  std::vector<uint8_t> after_replay;
  CHECK_OK(scene.world.snapshot(after_replay));
  CHECK(after_replay == after_first);

  // A cut-short snapshot is refused, and nothing changes.
  const keel::Status short_data = outcome([&]() -> keel::Status {
    return scene.world.restore(keel::Span<const uint8_t>(saved.data(), saved.size() / 2));
  });
  CHECK(short_data.code() == KEEL_ERROR_INVALID_ARGUMENT);
  CHECK(hash_of(scene.world) == hash_after);
#ifndef KEEL_NO_EXCEPTIONS
  CHECK(scene.world.snapshot() == after_first);
  CHECK(scene.world.state_hash() == hash_after);
#endif
}

void test_body_snapshot_moves_between_bodies() {
  Scene scene;
  fill(scene, keel::default_world_desc(), 1);
  keel::Body &body = scene.bodies[0];
  keel::BodyForces forces{};
  for (int k = 0; k < 10; ++k) {
    CHECK_OK(body.step(moving_state(0, k), 1.0f / 60.0f, forces));
  }
  std::vector<uint8_t> saved;
  CHECK_OK(body.snapshot(saved));
  CHECK(saved.size() >= 32 + 12 * 12); // 32 bytes plus 12 per triangle of the box
  std::vector<keel::BodyForces> first(5), again(5);
  for (int k = 10; k < 15; ++k) {
    CHECK_OK(body.step(moving_state(0, k), 1.0f / 60.0f, first[k - 10]));
  }

  // Into a fresh body of the same geometry, in the same world: it goes on as the first did.
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = scene.hull.handle();
  desc.mass = 1200.0f;
  keel::Body twin;
  CHECK_OK(keel::Body::create(scene.world, desc, twin));
  CHECK_OK(twin.restore(saved));
  for (int k = 10; k < 15; ++k) {
    CHECK_OK(twin.step(moving_state(0, k), 1.0f / 60.0f, again[k - 10]));
  }
  CHECK(same_bits(first, again));

  // A hull of another geometry refuses it.
  keel::Hull cube;
  CHECK_OK(keel::Hull::create_box(scene.world, {1.0f, 1.0f, 1.0f}, cube));
  desc.hull = cube.handle();
  keel::Body other;
  CHECK_OK(keel::Body::create(scene.world, desc, other));
  const keel::Status refused = outcome([&]() -> keel::Status { return other.restore(saved); });
  CHECK(refused.code() == KEEL_ERROR_INVALID_ARGUMENT);
  CHECK(refused.message().find("keel_body_restore") != std::string::npos);
}

void test_origin_round_trip() {
  keel::World world = make_world();
  keel::DVec3 origin{};
  CHECK_OK(world.origin(origin));
  CHECK(origin.x == 0.0 && origin.y == 0.0 && origin.z == 0.0);
  const keel::DVec3 far = {1.0e8 + 0.125, -3.0, 2.5e7 - 0.5};
  CHECK_OK(world.set_origin(far));
  CHECK_OK(world.origin(origin));
  CHECK(origin.x == far.x && origin.y == far.y && origin.z == far.z);
  // Small shifts far out keep their double precision, and undo exactly.
  CHECK_OK(world.shift_origin({0.001, 0.0, -0.25}));
  CHECK_OK(world.origin(origin));
  CHECK(origin.x == far.x + 0.001 && origin.z == far.z - 0.25);
  CHECK_OK(world.shift_origin({-0.001, 0.0, 0.25}));
  CHECK_OK(world.origin(origin));
  CHECK(std::fabs(origin.x - far.x) < 1e-7 && origin.z == far.z);
  // The origin is part of the world's snapshot.
  std::vector<uint8_t> saved;
  CHECK_OK(world.snapshot(saved));
  CHECK_OK(world.set_origin({0.0, 0.0, 0.0}));
  CHECK_OK(world.restore(saved));
  CHECK_OK(world.origin(origin));
  CHECK(std::fabs(origin.x - far.x) < 1e-7 && origin.z == far.z);
  const keel::Status not_finite = outcome([&]() -> keel::Status {
    return world.set_origin({std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0});
  });
  CHECK(not_finite.code() == KEEL_ERROR_INVALID_ARGUMENT);
#ifndef KEEL_NO_EXCEPTIONS
  CHECK(std::fabs(world.origin().x - far.x) < 1e-7);
#endif
}

// The smallest job system: enqueue runs the whole task inline and says so with NULL.
int g_serial_tasks = 0;
void *serial_enqueue(KeelTaskFn task, uint32_t item_count, uint32_t, void *task_context,
                     void *) {
  ++g_serial_tasks;
  task(0, item_count, 0, task_context);
  return nullptr;
}
void serial_finish(void *, void *) {}

void test_job_systems_give_the_default_bits() {
  constexpr std::size_t kBodies = 40; // enough for keel to split the batch into groups
  Scene reference;
  keel::WorldDesc plain = keel::default_world_desc();
  fill(reference, plain, kBodies);
  const std::vector<keel::BodyForces> expected = run(reference, 0, 5);

  keel::WorldDesc serial = keel::default_world_desc();
  serial.enqueue_task = &serial_enqueue;
  serial.finish_task = &serial_finish;
  serial.worker_count = 1;
  Scene inline_scene;
  fill(inline_scene, serial, kBodies);
  g_serial_tasks = 0;
  CHECK(same_bits(expected, run(inline_scene, 0, 5)));
  CHECK(g_serial_tasks > 0);
  CHECK(hash_of(inline_scene.world) == hash_of(reference.world));

  // A C++ parallel-for that hands out ranges backwards on three pretend workers.
  int ranges = 0;
  keel::JobSystem jobs(
      [&ranges](uint32_t count, uint32_t min_range, keel::TaskRange task) {
        const uint32_t step = min_range > 0 ? min_range : 1;
        uint32_t end = count;
        for (uint32_t worker = 0; end > 0; worker = (worker + 1) % 3) {
          const uint32_t start = end > step ? end - step : 0;
          task(start, end, worker);
          ++ranges;
          end = start;
        }
      },
      3);
  Scene pooled;
  fill(pooled, jobs.world_desc(), kBodies);
  CHECK(same_bits(expected, run(pooled, 0, 5)));
  CHECK(ranges > 0);

  // One callback without the other is refused.
  keel::WorldDesc half = keel::default_world_desc();
  half.enqueue_task = &serial_enqueue;
  keel::World refused;
  const keel::Status status = outcome([&]() -> keel::Status { return keel::World::create(half, refused); });
  CHECK(status.code() == KEEL_ERROR_INVALID_ARGUMENT && !refused);
}

void test_destroy_all_worlds() {
  keel::World a = make_world();
  keel::World b = make_world();
  keel::Hull hull;
  CHECK_OK(keel::Hull::create_box(b, box_size(), hull));
  CHECK(keel::live_world_count() >= 2);
  CHECK(keel::destroy_all_worlds() >= 2);
  CHECK(keel::live_world_count() == 0);
  // The owners now hold dead handles; their destructors must take that quietly.
}

void test_versions() {
  CHECK(keel::abi_compatible());
  CHECK(keel::abi_version() >> 16 == KEEL_ABI_VERSION >> 16);
  CHECK(std::string(keel::version()).find('.') != std::string::npos);
  CHECK(std::string(keel::status_name(KEEL_ERROR_BUFFER_TOO_SMALL)) == "KEEL_ERROR_BUFFER_TOO_SMALL");
}

} // namespace

int main() {
#ifndef KEEL_NO_EXCEPTIONS
  try {
#endif
    test_versions();
    test_raii_releases_through_the_abi();
    test_move_semantics();
    test_errors_carry_the_native_message();
    test_steps_and_detail_getters();
    test_water();
    test_equilibrium();
    test_world_snapshot_replays_the_same_bits();
    test_body_snapshot_moves_between_bodies();
    test_origin_round_trip();
    test_job_systems_give_the_default_bits();
    test_destroy_all_worlds();
#ifndef KEEL_NO_EXCEPTIONS
  } catch (const keel::Error &e) {
    ++g_failures;
    std::printf("FAILED: unexpected keel::Error %s: %s\n", keel::status_name(e.code()), e.what());
  }
#endif
  std::printf("%s mode: %d passed, %d failed\n",
#ifdef KEEL_NO_EXCEPTIONS
              "no-exceptions",
#else
              "exceptions",
#endif
              g_checks - g_failures, g_failures);
  return g_failures == 0 ? 0 : 1;
}
