/*
 * app.c: the smallest C host, compiled by tests/cpp.rs with exactly the lines
 * bindings/cpp/README.md shows (static, shared with an rpath, pkg-config).
 *
 * A 2 m x 0.6 m x 2 m box of 1200 kg (half the water's density) held at its Archimedes
 * draft, 0.3 m: the buoyancy keel returns must carry its weight. Prints "lift/weight"
 * and exits nonzero if it is off by more than 1% or anything fails.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

#include "keel.h"

#include <math.h>
#include <stdio.h>

static int fail(const char *what) {
  char message[256];
  keel_last_error_message(message, sizeof message);
  fprintf(stderr, "%s failed: %s\n", what, message);
  return 1;
}

int main(void) {
  KeelWorldDesc world_desc;
  KeelWorld world = 0;
  KeelHull hull = 0;
  KeelBodyDesc body_desc;
  KeelBody body = 0;
  KeelBodyState state = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f},
                         {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
  KeelBodyForces forces;
  const KeelVec3 size = {2.0f, 0.6f, 2.0f};
  const float mass = 1200.0f;
  double lift;

  if ((keel_abi_version() >> 16) != (KEEL_ABI_VERSION >> 16)) {
    fprintf(stderr, "library ABI %#x, header %#x\n", keel_abi_version(), KEEL_ABI_VERSION);
    return 1;
  }
  keel_world_desc_default(&world_desc);
  world_desc.thread_count = 1;
  if (keel_world_create(&world_desc, &world) != KEEL_OK) return fail("keel_world_create");
  if (keel_hull_create_box(world, size, &hull) != KEEL_OK) return fail("keel_hull_create_box");
  keel_body_desc_default(&body_desc);
  body_desc.hull = hull;
  body_desc.mass = mass;
  if (keel_body_create(world, &body_desc, &body) != KEEL_OK) return fail("keel_body_create");

  /* Bottom at -0.3 m: the centre (origin and centre of mass) at 0. */
  if (keel_body_step(world, body, &state, 1.0f / 60.0f, &forces) != KEEL_OK) {
    return fail("keel_body_step");
  }
  lift = forces.buoyancy_force.y / (mass * world_desc.gravity);
  printf("keel %s: lift/weight %.4f\n", keel_version_string(), lift);

  if (keel_world_destroy(world) != KEEL_OK) return fail("keel_world_destroy");
  return fabs(lift - 1.0) <= 0.01 ? 0 : 1;
}
