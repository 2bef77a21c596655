// wrapper_cost.cpp: what keel.hpp adds to a step, counted by callgrind (tests/cpp.rs).
//
// The same bodies are stepped through the same states twice: by the C functions
// (keel_body_step, keel_world_step) and by the wrapper's (Body::step, World::step). Each
// loop is a function of its own, never inlined, that tests/cpp.rs names to callgrind's
// --toggle-collect: the instructions counted in one are the library's step and the loop's
// own; the library's part is the same in both (the same bodies' first steps, the same
// states), so the difference is the wrapper's. Run without valgrind it only steps, and
// prints "stepped" when every step succeeded.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#include "keel.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int kSteps = 40;
constexpr std::size_t kBatch = 16;
constexpr float kDt = 1.0f / 60.0f;

// Body i's state at step k: heaving and pitching, so that the wet area keeps changing.
keel::BodyState state_at(std::size_t i, int k) {
  keel::BodyState state{};
  const float t = static_cast<float>(k) * kDt;
  const float half_pitch = 0.1f * std::sin(2.0f * t + static_cast<float>(i));
  state.rotation = {std::sin(half_pitch), 0.0f, 0.0f, std::cos(half_pitch)};
  state.position = {3.0f * static_cast<float>(i), 0.25f * std::sin(3.0f * t), 0.0f};
  state.linear_velocity = {1.0f, 0.75f * std::cos(3.0f * t), 0.0f};
  state.angular_velocity = {0.2f * std::cos(2.0f * t + static_cast<float>(i)), 0.0f, 0.0f};
  state.center_of_mass = state.position;
  return state;
}

} // namespace

// The loops callgrind counts (C names: --toggle-collect matches them as written). Each
// returns how many steps failed.
extern "C" {

__attribute__((noinline)) int cost_body_step_c(KeelWorld world, KeelBody body,
                                               const keel::BodyState *states) {
  int failed = 0;
  for (int k = 0; k < kSteps; ++k) {
    KeelBodyForces out;
    failed += keel_body_step(world, body, &states[k], kDt, &out) != KEEL_OK;
  }
  return failed;
}

__attribute__((noinline)) int cost_body_step_hpp(keel::Body &body, const keel::BodyState *states) {
  int failed = 0;
  for (int k = 0; k < kSteps; ++k) {
    keel::BodyForces out;
    failed += !body.step(states[k], kDt, out).ok();
  }
  return failed;
}

__attribute__((noinline)) int cost_world_step_c(KeelWorld world, const KeelBody *bodies,
                                                const keel::BodyState *states) {
  int failed = 0;
  for (int k = 0; k < kSteps; ++k) {
    KeelBodyForces out[kBatch];
    failed += keel_world_step(world, bodies, &states[k * kBatch], kBatch, kDt, out) != KEEL_OK;
  }
  return failed;
}

__attribute__((noinline)) int cost_world_step_hpp(keel::World &world, const KeelBody *bodies,
                                                  const keel::BodyState *states) {
  int failed = 0;
  for (int k = 0; k < kSteps; ++k) {
    keel::BodyForces out[kBatch];
    failed += !world
                   .step(keel::Span<const KeelBody>(bodies, kBatch),
                         keel::Span<const keel::BodyState>(&states[k * kBatch], kBatch), kDt,
                         keel::Span<keel::BodyForces>(out, kBatch))
                   .ok();
  }
  return failed;
}

} // extern "C"

int main() {
  keel::WorldDesc world_desc = keel::default_world_desc();
  world_desc.thread_count = 1;
  keel::World world;
  keel::Hull hull;
  if (!keel::World::create(world_desc, world).ok() ||
      !keel::Hull::create_box(world, {1.0f, 1.0f, 1.0f}, hull).ok()) {
    std::printf("setup failed: %s\n", keel::last_error_message().c_str());
    return 1;
  }
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = hull.handle();
  desc.mass = 500.0f;
  // Two bodies for the lone steps, two batches for the world's: fresh ones for each
  // loop, so that both start from no history and take the same path; and a body and a
  // batch stepped first, uncounted, so that neither loop pays the library's first-use
  // costs (a thread's scratch buffers).
  std::vector<keel::Body> bodies(3 + 3 * kBatch);
  for (keel::Body &body : bodies) {
    if (!keel::Body::create(world, desc, body).ok()) {
      std::printf("setup failed: %s\n", keel::last_error_message().c_str());
      return 1;
    }
  }
  std::vector<keel::BodyState> lone(kSteps);
  std::vector<keel::BodyState> batch(kSteps * kBatch);
  for (int k = 0; k < kSteps; ++k) {
    lone[k] = state_at(0, k);
    for (std::size_t i = 0; i < kBatch; ++i) {
      batch[k * kBatch + i] = state_at(i, k);
    }
  }
  std::vector<KeelBody> first(kBatch), second(kBatch), warm(kBatch);
  for (std::size_t i = 0; i < kBatch; ++i) {
    first[i] = bodies[3 + i].handle();
    second[i] = bodies[3 + kBatch + i].handle();
    warm[i] = bodies[3 + 2 * kBatch + i].handle();
  }
  int failed = 0;
  for (int k = 0; k < kSteps; ++k) {
    KeelBodyForces out[kBatch];
    failed += keel_body_step(world.handle(), bodies[2].handle(), &lone[k], kDt, out) != KEEL_OK;
    failed += keel_world_step(world.handle(), warm.data(), &batch[k * kBatch], kBatch, kDt, out) !=
              KEEL_OK;
  }
  failed += cost_body_step_c(world.handle(), bodies[0].handle(), lone.data());
  failed += cost_body_step_hpp(bodies[1], lone.data());
  failed += cost_world_step_c(world.handle(), first.data(), batch.data());
  failed += cost_world_step_hpp(world, second.data(), batch.data());
  if (failed != 0) {
    std::printf("%d steps failed: %s\n", failed, keel::last_error_message().c_str());
    return 1;
  }
  std::printf("stepped %d times each way\n", kSteps);
  return 0;
}
