// cpp_engine: Keel inside a C++ engine's loop. Keel computes what the water and the air
// do to two bodies (a box barge and a boat hull); this program owns the rigid bodies
// and integrates them, as an engine would. Flat water first, then a Gerstner sea; the
// motion is printed twice a second, and at the end the run checks itself against
// Archimedes (the box's mean draft) and for blow-ups, exiting 1 if anything is off.
// Keel's batch runs on the engine's own thread pool (keel::JobSystem over
// engine::ThreadPool, so keel starts no thread), and each step is compared bit for bit
// with the same bodies in a world on keel's own path.
//
//   cpp_engine [--flat SECONDS] [--waves SECONDS]
//
// The Archimedes checks need at least 8 s of flat water and 8 s of waves (the defaults
// are 10 and 20); shorter runs, as under valgrind, skip them and say so.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#include "boat_mesh.hpp"
#include "keel.hpp"
#include "rigid_body.hpp"
#include "thread_pool.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using engine::V3;

constexpr double kGravity = 9.81;
constexpr double kWaterDensity = 1000.0;
constexpr double kPi = 3.14159265358979323846;

// The box barge: 2 m x 0.6 m x 2 m at half the water's density floats 0.3 m deep, and
// is stable (GM = B^2 / 12T + T/2 - H/2 = 0.96 m).
constexpr float kBoxWidth = 2.0f, kBoxHeight = 0.6f, kBoxLength = 2.0f;
constexpr double kBoxMass = 0.5 * kWaterDensity * kBoxWidth * kBoxHeight * kBoxLength;

struct Options {
  double flat_seconds = 10.0;
  double wave_seconds = 20.0;
};

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--flat") == 0 && has_value) {
      options.flat_seconds = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--waves") == 0 && has_value) {
      options.wave_seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--flat SECONDS] [--waves SECONDS]\n", argv[0]);
      return false;
    }
  }
  return options.flat_seconds > 0.0 && options.wave_seconds > 0.0;
}

// A simulated body: the engine's rigid body and keel's body for it.
struct Thing {
  engine::RigidBody rigid;
  keel::Body body;
};

Thing make_thing(const keel::World &world, const keel::Hull &hull, double mass, V3 com_local) {
  Thing thing;
  const keel::Inertia inertia = hull.inertia(static_cast<float>(mass));
  thing.rigid.mass = mass;
  thing.rigid.principal_inertia = engine::v3(inertia.principal);
  thing.rigid.inertia_rotation = engine::q4(inertia.rotation);
  thing.rigid.center_of_mass_local = com_local;
  keel::BodyDesc desc = keel::default_body_desc();
  desc.hull = hull.handle();
  desc.mass = static_cast<float>(mass);
  // Keel's drag limiter keeps a torque from reversing a spin: it needs the inertia the
  // engine integrates with.
  desc.inertia = inertia.principal;
  desc.inertia_rotation = inertia.rotation;
  thing.body = keel::Body::create(world, desc);
  return thing;
}

double degrees(double radians) { return radians * 180.0 / kPi; }

// Heel about the body's fore-and-aft axis and trim about its athwartships one.
double roll(const engine::RigidBody &r) { return degrees(std::asin(engine::rotate(r.rotation, {1, 0, 0}).y)); }
double pitch(const engine::RigidBody &r) { return degrees(std::asin(engine::rotate(r.rotation, {0, 0, 1}).y)); }

// A running mean.
struct Mean {
  double sum = 0;
  long count = 0;
  void add(double x) { sum += x, ++count; }
  double value() const { return count ? sum / count : std::nan(""); }
};

struct Checks {
  int failures = 0;
  void require(bool ok, const std::string &what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
    failures += ok ? 0 : 1;
  }
  // A check that needs what this run did not do (a short run, an older library).
  void require_if(bool can_judge, const char *why_not, bool ok, const std::string &what) {
    if (can_judge) {
      require(ok, what);
    } else {
      std::printf("  [skip] %s: %s\n", what.c_str(), why_not);
    }
  }
};

std::string format(const char *fmt, double a, double b, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c);
  return text;
}

// A sea of two Gerstner waves, long against the bodies (which then ride them).
std::vector<keel::GerstnerWave> sea() {
  keel::GerstnerWave swell{};
  swell.amplitude = 0.25f;
  swell.wavelength = 24.0f;
  swell.direction_x = 1.0f;
  swell.direction_z = 0.0f;
  swell.steepness = 0.3f;
  keel::GerstnerWave chop{};
  chop.amplitude = 0.08f;
  chop.wavelength = 9.0f;
  chop.direction_x = 0.6f;
  chop.direction_z = 0.8f;
  chop.steepness = 0.2f;
  chop.phase = 1.0f;
  return {swell, chop};
}

// Everything keel owns, declared world, hulls, bodies: destroyed in the reverse order.
struct Scene {
  keel::World world;
  keel::Hull box_hull;
  keel::Hull boat_hull;
  Thing box;
  Thing boat;
  double boat_mass = 0;
  // The same bodies in a world on keel's own path (no job system): each step is
  // compared bit for bit with the main world's, which runs on the engine's pool.
  keel::World shadow_world;
  keel::Hull shadow_box_hull;
  keel::Hull shadow_boat_hull;
  keel::Body shadow_box;
  keel::Body shadow_boat;
};

keel::Body twin_body(const keel::World &world, const keel::Body &body, const keel::Hull &hull) {
  keel::BodyDesc desc = body.desc();
  desc.hull = hull.handle();
  return keel::Body::create(world, desc);
}

// The box is dropped from 0.1 m above the water; the boat is spawned at rest where keel
// says it floats (keel_body_find_equilibrium). `jobs_desc` carries the engine's job system.
Scene make_scene(keel::WorldDesc jobs_desc) {
  Scene scene;
  jobs_desc.gravity = static_cast<float>(kGravity);
  jobs_desc.water_density = static_cast<float>(kWaterDensity);
  scene.world = keel::World(jobs_desc);
  keel::WorldDesc own_desc = jobs_desc;
  own_desc.enqueue_task = nullptr;
  own_desc.finish_task = nullptr;
  own_desc.user_task_context = nullptr;
  own_desc.thread_count = 1;
  scene.shadow_world = keel::World(own_desc);

  scene.box_hull = keel::Hull::create_box(scene.world, {kBoxWidth, kBoxHeight, kBoxLength});
  const engine::Mesh boat_mesh = engine::make_boat(6.0f, 2.2f, 1.1f, 0.5f);
  scene.boat_hull = keel::Hull::create(scene.world, boat_mesh.vertices, boat_mesh.indices);
  const keel::HullInfo boat_info = scene.boat_hull.info();
  std::printf("boat hull: %u triangles, closed %s, volume %.3f m^3\n", boat_info.triangle_count,
              boat_info.is_closed ? "yes" : "no", boat_info.volume);
  scene.boat_mass = 0.4 * kWaterDensity * boat_info.volume;

  scene.box = make_thing(scene.world, scene.box_hull, kBoxMass, {0, 0, 0});
  scene.boat = make_thing(scene.world, scene.boat_hull, scene.boat_mass, engine::v3(boat_info.centroid));
  scene.box.rigid.center_of_mass = {0.0, kBoxHeight / 2 + 0.1, 0.0};
  keel::BodyState boat_start = scene.boat.rigid.state();
  boat_start.position = {8.0f, 0.0f, 0.0f};
  scene.boat.rigid.set_pose(
      scene.boat.body.equilibrium(engine::kv(scene.boat.rigid.center_of_mass_local), boat_start));
  scene.shadow_box_hull = keel::Hull::create_box(scene.shadow_world, {kBoxWidth, kBoxHeight, kBoxLength});
  scene.shadow_boat_hull = keel::Hull::create(scene.shadow_world, boat_mesh.vertices, boat_mesh.indices);
  scene.shadow_box = twin_body(scene.shadow_world, scene.box.body, scene.shadow_box_hull);
  scene.shadow_boat = twin_body(scene.shadow_world, scene.boat.body, scene.shadow_boat_hull);
  return scene;
}

// What the run saw, for the closing checks.
struct Record {
  Mean flat_draft, wave_draft, boat_flat_volume;
  double boat_first_lift = 0, max_speed = 0, max_spin = 0, box_min_up = 1, boat_min_up = 1;
  bool finite = true;
  long steps = 0, steps_off_keels_bits = 0;
};

// The box's draft at its bottom's centre, against the water right there.
double box_draft(const Scene &scene) {
  const engine::RigidBody &r = scene.box.rigid;
  const V3 bottom = r.position() + engine::rotate(r.rotation, {0, -kBoxHeight / 2, 0});
  return scene.world.water_height(engine::kv(bottom)) - bottom.y;
}

void print_row(double t, const Scene &scene, double draft, const keel::BodyForces &boat_forces) {
  const engine::RigidBody &box = scene.box.rigid, &boat = scene.boat.rigid;
  std::printf("%6.1f | %+7.3f m %6.3f m %5.1f deg | %+7.3f m %+6.1f %+6.1f deg %5.2f\n", t,
              box.center_of_mass.y, draft, degrees(std::acos(std::fmin(1.0, box.up().y))),
              boat.center_of_mass.y, roll(boat), pitch(boat),
              boat_forces.buoyancy_force.y / (scene.boat_mass * kGravity));
}

// The engine's side of a step: keel's forces, gravity, integration.
void integrate(Thing &thing, const keel::BodyForces &forces, double dt, Record &record) {
  engine::RigidBody &r = thing.rigid;
  r.integrate(engine::v3(forces.force), engine::v3(forces.torque), {0, -kGravity, 0}, dt);
  record.finite = record.finite && engine::finite(r.center_of_mass) && engine::finite(r.velocity) &&
                  engine::finite(r.angular_velocity) && std::isfinite(r.rotation.w);
  record.max_speed = std::fmax(record.max_speed, engine::length(r.velocity));
  record.max_spin = std::fmax(record.max_spin, engine::length(r.angular_velocity));
}

constexpr double kFlatSettle = 5.0, kWaveSettle = 3.0; // s before the means start

// The game loop: flat water, then the sea; both bodies in one keel_world_step a frame.
Record simulate(Scene &scene, const Options &options) {
  const double dt = 1.0 / 60.0;
  const long flat_steps = std::lround(options.flat_seconds / dt);
  const long total_steps = flat_steps + std::lround(options.wave_seconds / dt);
  Record record;
  std::printf("%6s | %-28s | %s\n", "t (s)", "box: heave, draft, tilt",
              "boat: heave, roll, pitch, buoyancy/weight");
  for (long step = 0; step < total_steps; ++step) {
    const double t = step * dt;
    if (step == flat_steps) {
      scene.world.set_water_gerstner(sea());
      scene.shadow_world.set_water_gerstner(sea());
      std::printf("-- Gerstner sea from t = %.1f s --\n", t);
    }
    scene.world.set_time(t);
    scene.shadow_world.set_time(t);

    const KeelBody handles[2] = {scene.box.body.handle(), scene.boat.body.handle()};
    const keel::BodyState states[2] = {scene.box.rigid.state(), scene.boat.rigid.state()};
    keel::BodyForces forces[2] = {};
    scene.world.step(handles, states, static_cast<float>(dt), forces);
    const KeelBody shadow_handles[2] = {scene.shadow_box.handle(), scene.shadow_boat.handle()};
    keel::BodyForces shadow_forces[2] = {};
    scene.shadow_world.step(shadow_handles, states, static_cast<float>(dt), shadow_forces);
    ++record.steps;
    record.steps_off_keels_bits += std::memcmp(forces, shadow_forces, sizeof forces) != 0 ? 1 : 0;

    const double draft = box_draft(scene);
    const bool flat = step < flat_steps;
    const double on_this_water = flat ? t : t - options.flat_seconds;
    if (on_this_water >= (flat ? kFlatSettle : kWaveSettle)) {
      (flat ? record.flat_draft : record.wave_draft).add(draft);
      if (flat) {
        record.boat_flat_volume.add(forces[1].submerged_volume);
      }
    }
    if (step == 0) {
      record.boat_first_lift = forces[1].force.y / (scene.boat_mass * kGravity);
    }
    if (step % 30 == 0) {
      print_row(t, scene, draft, forces[1]);
    }

    integrate(scene.box, forces[0], dt, record);
    integrate(scene.boat, forces[1], dt, record);
    record.box_min_up = std::fmin(record.box_min_up, scene.box.rigid.up().y);
    record.boat_min_up = std::fmin(record.boat_min_up, scene.boat.rigid.up().y);
  }
  return record;
}

// The closing verdict: the number of failed checks.
int judge(const Record &r, const Options &options, double boat_mass, uint64_t pool_jobs) {
  const double archimedes_draft = kBoxMass / (kWaterDensity * kBoxWidth * kBoxLength);
  const double boat_volume = boat_mass / kWaterDensity;
  const bool long_flat = options.flat_seconds >= kFlatSettle + 3.0;
  const bool long_waves = options.wave_seconds >= kWaveSettle + 5.0;
  const char *short_run = "skipped, the run is too short to settle";
  std::printf("physics sanity:\n");
  Checks checks;
  checks.require(r.finite, "every position, velocity and rotation stayed finite");
  checks.require(r.max_speed < 10.0 && r.max_spin < 10.0,
                 format("nothing exploded: top speed %.2f m/s, top spin %.2f rad/s", r.max_speed, r.max_spin));
  checks.require_if(long_flat, short_run, std::fabs(r.flat_draft.value() / archimedes_draft - 1.0) < 0.02,
                    format("flat water: box mean draft %.4f m, Archimedes %.4f m (2%%)",
                           r.flat_draft.value(), archimedes_draft));
  checks.require_if(long_waves, short_run, std::fabs(r.wave_draft.value() / archimedes_draft - 1.0) < 0.05,
                    format("Gerstner sea: box mean draft %.4f m, Archimedes %.4f m (5%%)",
                           r.wave_draft.value(), archimedes_draft));
  checks.require(std::fabs(r.boat_first_lift - 1.0) < 0.02,
                 format("boat spawned at keel's equilibrium: lift / weight %.4f", r.boat_first_lift, 0));
  checks.require_if(long_flat, short_run, std::fabs(r.boat_flat_volume.value() / boat_volume - 1.0) < 0.02,
                    format("flat water: boat displaces %.4f m^3 for %.4f m^3 of weight (2%%)",
                           r.boat_flat_volume.value(), boat_volume));
  checks.require(r.box_min_up > 0.8 && r.boat_min_up > 0.8,
                 format("both stayed upright: lowest up.y box %.3f, boat %.3f", r.box_min_up, r.boat_min_up));
  checks.require(r.steps > 0 && r.steps_off_keels_bits == 0 && pool_jobs > 0,
                 format("the engine's pool (%.0f jobs) gave keel's own bits: %.0f of %.0f steps differ",
                        static_cast<double>(pool_jobs), static_cast<double>(r.steps_off_keels_bits),
                        static_cast<double>(r.steps)));
  return checks.failures;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parse(argc, argv, options)) {
    return 2;
  }
  if (!keel::abi_compatible()) {
    std::fprintf(stderr, "keel library ABI %#x does not serve this header (%#x)\n",
                 keel::abi_version(), KEEL_ABI_VERSION);
    return 1;
  }
  std::printf("keel %s, ABI %u.%u\n", keel::version(), keel::abi_version() >> 16,
              keel::abi_version() & 0xffffu);
  try {
    // The engine's job system, declared before the scene: the world keeps its address.
    engine::ThreadPool pool(2);
    keel::JobSystem jobs([&pool](uint32_t count, uint32_t min_range,
                                 keel::TaskRange task) { pool.parallel_for(count, min_range, task); },
                         pool.worker_count());
    Scene scene = make_scene(jobs.world_desc());
    const Record record = simulate(scene, options);

    // The detail an engine draws foam and debug views from (two-call getters).
    const std::vector<keel::Vec3> waterline = scene.boat.body.waterline();
    const std::vector<keel::Vec3> wet = scene.boat.body.submerged_triangles();
    std::printf("boat at the end: %zu waterline segments, %zu submerged triangles\n",
                waterline.size() / 2, wet.size() / 3);

    const int failures = judge(record, options, scene.boat_mass, pool.jobs_run());
    if (failures != 0) {
      std::printf("physics sanity: %d check(s) FAILED\n", failures);
      return 1;
    }
    std::printf("physics sanity: OK\n");
  } catch (const keel::Error &e) {
    std::fprintf(stderr, "keel error %s: %s\n", keel::status_name(e.code()), e.what());
    return 1;
  }
  return 0;
}
