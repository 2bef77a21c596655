// keel.hpp: a header-only C++17 wrapper over keel.h, the C ABI of Keel (buoyancy and
// boat physics for game engines).
//
// - World, Hull and Body own their native handle (RAII, move-only): the destructor
//   destroys it. Declare them in the order world, hulls, bodies, so that they die in the
//   reverse order (a hull cannot be destroyed while a body uses it; destroying a world
//   destroys everything in it, and a later destructor then quietly finds its handle gone).
// - Buffers are passed as keel::Span (pointer + size; std::vector, std::array and C
//   arrays convert to it).
// - Errors: by default every failing call throws keel::Error, whose what() is the
//   native message (keel_last_error_message) and code() the KeelStatus. Define
//   KEEL_NO_EXCEPTIONS before including this header (or build with -fno-exceptions) to
//   get a keel::Status back instead, marked [[nodiscard]]; the calls that return a
//   value then exist only in their out-parameter form.
// - Calls that return a value have both forms: `HullInfo info() const` (throws) and
//   `Status info(HullInfo &out) const` (both modes). The detail getters fill a
//   std::vector with the two-call pattern and, given one, reuse its capacity, so that a
//   game loop does not allocate every frame.
// - Snapshots (World/Body::snapshot, restore) are std::vector<uint8_t>, two-call too.
// - A host's job system goes in WorldDesc's enqueue_task/finish_task (the C callbacks),
//   or through keel::JobSystem, which adapts a C++ parallel-for.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#ifndef KEEL_HPP
#define KEEL_HPP

#if !defined(KEEL_NO_EXCEPTIONS) && !defined(__cpp_exceptions) && !defined(_CPPUNWIND)
#define KEEL_NO_EXCEPTIONS 1
#endif

#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 201703L
#error "keel.hpp needs C++17 (-std=c++17)"
#endif

#include "keel.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef KEEL_NO_EXCEPTIONS
#include <stdexcept>
#endif

#ifdef KEEL_NO_EXCEPTIONS
// Without exceptions a dropped Status is a dropped error.
#define KEEL_STATUS_NODISCARD [[nodiscard]]
#else
#define KEEL_STATUS_NODISCARD
#endif

namespace keel {

// ------------------------------------------------------------------------------------
// The C types under shorter names: the layouts are the ABI's, so arrays of them go
// straight to the native library.

using Vec3 = KeelVec3;
using Quat = KeelQuat;
using WorldDesc = KeelWorldDesc;
using PerlinWaterDesc = KeelPerlinWaterDesc;
using GerstnerWave = KeelGerstnerWave;
using HullDesc = KeelHullDesc;
using HullInfo = KeelHullInfo;
using BodyDesc = KeelBodyDesc;
using BodyState = KeelBodyState;
using BodyForces = KeelBodyForces;
using TriangleForce = KeelTriangleForce;
using WorldCounts = KeelWorldCounts;
using BuoyancyModel = KeelBuoyancyModel;
using Spectrum = KeelSpectrum;
using WaterQuery = KeelWaterQuery;

// A point or offset in double precision: the world's origin.
struct DVec3 {
  double x, y, z;
};

// ------------------------------------------------------------------------------------
// Span: a view of contiguous elements (std::span is C++20).

template <class T>
class Span {
public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr Span() noexcept = default;
  constexpr Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}
  // Any container with data() and size() whose elements are T (std::vector, std::array,
  // std::string for chars, another library's vector). A temporary lives until the end
  // of the full expression, which covers the call it is passed to.
  template <class C,
            class = std::enable_if_t<
                !std::is_same_v<std::remove_cv_t<std::remove_reference_t<C>>, Span> &&
                std::is_convertible_v<decltype(std::declval<C &>().data()), T *> &&
                std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<C &>().data())>>,
                               value_type>>>
  constexpr Span(C &&container) noexcept : data_(container.data()), size_(container.size()) {}

  constexpr T *data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T *begin() const noexcept { return data_; }
  constexpr T *end() const noexcept { return data_ + size_; }
  constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

// ------------------------------------------------------------------------------------
// Errors.

// The native library's message for the last failure on this thread
// (keel_last_error_message); empty if nothing failed yet.
inline std::string last_error_message() {
  const std::size_t length = keel_last_error_message(nullptr, 0);
  std::string message(length + 1, '\0');
  const std::size_t written = keel_last_error_message(&message[0], message.size());
  message.resize(written < length ? written : length);
  return message;
}

// The name of a status, for logs: "KEEL_ERROR_INVALID_HANDLE".
inline const char *status_name(KeelStatus code) noexcept {
  switch (code) {
  case KEEL_OK: return "KEEL_OK";
  case KEEL_ERROR_NULL_POINTER: return "KEEL_ERROR_NULL_POINTER";
  case KEEL_ERROR_INVALID_HANDLE: return "KEEL_ERROR_INVALID_HANDLE";
  case KEEL_ERROR_INVALID_ARGUMENT: return "KEEL_ERROR_INVALID_ARGUMENT";
  case KEEL_ERROR_INVALID_MESH: return "KEEL_ERROR_INVALID_MESH";
  case KEEL_ERROR_BUFFER_TOO_SMALL: return "KEEL_ERROR_BUFFER_TOO_SMALL";
  case KEEL_ERROR_INTERNAL: return "KEEL_ERROR_INTERNAL";
  }
  return "KEEL_ERROR_(unknown)";
}

// The outcome of a call: a KeelStatus and, on failure, the message that went with it
// (captured at once, since the next failing call on this thread replaces the native one).
class KEEL_STATUS_NODISCARD Status {
public:
  Status() noexcept = default;
  Status(KeelStatus code, std::string message) : code_(code), message_(std::move(message)) {}

  KeelStatus code() const noexcept { return code_; }
  bool ok() const noexcept { return code_ == KEEL_OK; }
  explicit operator bool() const noexcept { return ok(); }
  const std::string &message() const noexcept { return message_; }

private:
  KeelStatus code_ = KEEL_OK;
  std::string message_;
};

#ifndef KEEL_NO_EXCEPTIONS
// What every failing call throws: what() is the native message, "function: reason".
class Error : public std::runtime_error {
public:
  Error(KeelStatus code, const std::string &message) : std::runtime_error(message), code_(code) {}
  KeelStatus code() const noexcept { return code_; }

private:
  KeelStatus code_;
};
#endif

namespace detail {

// A failure with a message of the wrapper's own (a check made before calling keel).
inline Status fail(KeelStatus code, std::string message) {
#ifndef KEEL_NO_EXCEPTIONS
  throw Error(code, message);
#else
  return Status(code, std::move(message));
#endif
}

// The wrapper's error convention applied to a native status.
inline Status check(KeelStatus code) {
  if (code == KEEL_OK) {
    return Status();
  }
  return fail(code, last_error_message());
}

// The ABI counts in uint32_t; a larger buffer must fail, not wrap around.
inline bool fits_u32(std::size_t n) noexcept {
  return n <= static_cast<std::size_t>(std::numeric_limits<uint32_t>::max());
}

inline Status too_many(const char *function, const char *what) {
  return fail(KEEL_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": " + what + " holds more than 2^32 - 1 elements");
}

// The two-call pattern: ask for the count, size the vector, fetch. `get` is the native
// getter bound to its world and body. Another thread may step the body between the two
// calls; the fetch then says how many are needed now, and is retried with that.
template <class T, class Get>
Status fetch_detail(std::vector<T> &out, Get get) {
  uint32_t count = 0;
  KeelStatus code = get(nullptr, 0u, &count);
  for (int attempt = 0; code == KEEL_OK && attempt < 8; ++attempt) {
    out.resize(count);
    code = get(out.data(), count, &count);
    if (code == KEEL_OK) {
      out.resize(count);
      return Status();
    }
    if (code == KEEL_ERROR_BUFFER_TOO_SMALL) {
      code = KEEL_OK;
    }
  }
  out.clear();
  return check(code == KEEL_OK ? KEEL_ERROR_BUFFER_TOO_SMALL : code);
}

} // namespace detail

// ------------------------------------------------------------------------------------
// Library-wide functions.

// KEEL_ABI_VERSION of the loaded library: major << 16 | minor.
inline uint32_t abi_version() noexcept { return keel_abi_version(); }

// True when the loaded library serves this header: same major version, and a minor
// version at least the header's.
inline bool abi_compatible() noexcept {
  const uint32_t loaded = keel_abi_version();
  return (loaded >> 16) == (KEEL_ABI_VERSION >> 16) &&
         (loaded & 0xffffu) >= (KEEL_ABI_VERSION & 0xffffu);
}

// The snapshot format this header's library writes and reads.
constexpr uint32_t snapshot_version = KEEL_SNAPSHOT_VERSION;

// The library's version, e.g. "0.1.0".
inline const char *version() noexcept { return keel_version_string(); }

inline WorldDesc default_world_desc() noexcept {
  WorldDesc desc{};
  keel_world_desc_default(&desc);
  return desc;
}

inline PerlinWaterDesc default_perlin_water_desc() noexcept {
  PerlinWaterDesc desc{};
  keel_perlin_water_desc_default(&desc);
  return desc;
}

inline BodyDesc default_body_desc() noexcept {
  BodyDesc desc{};
  keel_body_desc_default(&desc);
  return desc;
}

// Worlds alive in this process (leak checks after a code reload).
inline uint32_t live_world_count() noexcept { return keel_live_world_count(); }

// Destroys every world of the process and returns how many: for an editor that reloads
// its code while the native library stays loaded. Owners still holding a destroyed
// world's handles find them gone, which their destructors accept.
inline uint32_t destroy_all_worlds() noexcept { return keel_destroy_all_worlds(); }

// ------------------------------------------------------------------------------------
// The host's job system (WorldDesc's enqueue_task, finish_task, user_task_context and
// worker_count). Set the C callbacks yourself, or let JobSystem adapt a parallel-for.

// One of keel's tasks handed to the host: call it over item ranges, each item once.
struct TaskRange {
  KeelTaskFn task;
  void *task_context;
  void operator()(uint32_t start, uint32_t end, uint32_t worker_index) const {
    task(start, end, worker_index, task_context);
  }
};

// Adapts the shape of most engines' job systems, a blocking parallel-for
//   void(uint32_t item_count, uint32_t min_range, keel::TaskRange task)
// that calls task(start, end, worker_index) so that every item of 0..item_count runs
// exactly once, in ranges of at least min_range items (the last may be shorter), with
// worker_index below worker_count, and returns when all have run. Keel then starts no
// thread of its own. The JobSystem must outlive every world created with it; it does
// not move, since the worlds keep its address. The callable must not throw (an
// exception cannot cross keel's C frames: it ends the program).
template <class ParallelFor>
class JobSystem {
public:
  JobSystem(ParallelFor parallel_for, uint32_t worker_count)
      : parallel_for_(std::move(parallel_for)), worker_count_(worker_count) {}
  JobSystem(const JobSystem &) = delete;
  JobSystem &operator=(const JobSystem &) = delete;

  // Points `desc` at this job system.
  void install(WorldDesc &desc) noexcept {
    desc.enqueue_task = &JobSystem::enqueue;
    desc.finish_task = &JobSystem::finish;
    desc.user_task_context = this;
    desc.worker_count = worker_count_;
  }
  // default_world_desc() with this job system.
  WorldDesc world_desc() noexcept {
    WorldDesc desc = default_world_desc();
    install(desc);
    return desc;
  }
  uint32_t worker_count() const noexcept { return worker_count_; }

private:
  // The parallel-for has run the task in full when it returns: NULL tells keel so, and
  // finish_task is never called.
  static void *enqueue(KeelTaskFn task, uint32_t item_count, uint32_t min_range,
                       void *task_context, void *user_context) noexcept {
    static_cast<JobSystem *>(user_context)->parallel_for_(item_count, min_range,
                                                           TaskRange{task, task_context});
    return nullptr;
  }
  static void finish(void *, void *) noexcept {}

  ParallelFor parallel_for_;
  uint32_t worker_count_;
};

template <class ParallelFor>
JobSystem(ParallelFor, uint32_t) -> JobSystem<ParallelFor>;

// ------------------------------------------------------------------------------------
// World.

// A world: water, hulls and bodies. Owns its handle; an empty World (default
// constructed, moved from or released) holds 0.
class World {
public:
  World() noexcept = default;
#ifndef KEEL_NO_EXCEPTIONS
  // A world with `desc` (default_world_desc() and your changes); throws on failure.
  explicit World(const WorldDesc &desc) {
    (void)create(desc, *this);
  }
  static World create(const WorldDesc &desc = default_world_desc()) { return World(desc); }
#endif
  // Replaces `out` with a new world; `out` is left untouched on failure.
  static Status create(const WorldDesc &desc, World &out) {
    KeelWorld handle = 0;
    Status status = detail::check(keel_world_create(&desc, &handle));
    if (status) {
      out = adopt(handle);
    }
    return status;
  }
  // Takes ownership of a handle from the C API.
  static World adopt(KeelWorld handle) noexcept {
    World world;
    world.handle_ = handle;
    return world;
  }

  World(const World &) = delete;
  World &operator=(const World &) = delete;
  World(World &&other) noexcept
      : handle_(std::exchange(other.handle_, 0)), water_(std::move(other.water_)) {}
  World &operator=(World &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, 0);
      water_ = std::move(other.water_);
    }
    return *this;
  }
  ~World() { reset(); }

  KeelWorld handle() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != 0; }
  // Gives up ownership: the caller destroys the world (keel_world_destroy). A callable
  // given to set_water() is then leaked on purpose, since the world may still call it.
  KeelWorld release() noexcept {
    (void)water_.release();
    return std::exchange(handle_, 0);
  }
  // Destroys the world now (its hulls and bodies with it).
  void reset() noexcept {
    if (handle_ != 0) {
      (void)keel_world_destroy(handle_);
      handle_ = 0;
    }
    water_.reset();
  }

  Status set_time(double seconds) { return detail::check(keel_world_set_time(handle_, seconds)); }
  Status set_wind(Vec3 velocity) { return detail::check(keel_world_set_wind(handle_, velocity)); }
  Status set_current(Vec3 velocity) {
    return detail::check(keel_world_set_current(handle_, velocity));
  }

  Status counts(WorldCounts &out) const {
    return detail::check(keel_world_get_counts(handle_, &out));
  }
#ifndef KEEL_NO_EXCEPTIONS
  // How many hulls and bodies the world holds.
  WorldCounts counts() const {
    WorldCounts out{};
    (void)counts(out);
    return out;
  }
#endif

  // ---- Rollback and replay: the world's water time, wind, current, origin and every
  // body's snapshot (not the water's settings nor the bodies' descriptions). A restore
  // needs the world the snapshot was taken of, with the same bodies.
  Status snapshot(std::vector<uint8_t> &out) const {
    return detail::fetch_detail(out, [this](uint8_t *p, uint32_t cap, uint32_t *size) {
      return keel_world_snapshot(handle_, p, cap, size);
    });
  }
  Status restore(Span<const uint8_t> data) {
    if (!detail::fits_u32(data.size())) {
      return detail::too_many("keel_world_restore", "data");
    }
    return detail::check(
        keel_world_restore(handle_, data.data(), static_cast<uint32_t>(data.size())));
  }
  // A 64-bit hash of what keel keeps (not the bodies' poses): compare it between peers.
  Status state_hash(uint64_t &out) const {
    return detail::check(keel_world_get_state_hash(handle_, &out));
  }

  // ---- The world's origin in the water's frame, metres, in double: bodies near the
  // host's origin float on the sea far out with its true phase.
  Status set_origin(const DVec3 &origin) {
    return detail::check(keel_world_set_origin(handle_, origin.x, origin.y, origin.z));
  }
  // Call when the host moves its own origin by `delta` (its coordinates decrease by it).
  Status shift_origin(const DVec3 &delta) {
    return detail::check(keel_world_shift_origin(handle_, delta.x, delta.y, delta.z));
  }
  Status origin(DVec3 &out) const {
    return detail::check(keel_world_get_origin(handle_, &out.x, &out.y, &out.z));
  }

#ifndef KEEL_NO_EXCEPTIONS
  std::vector<uint8_t> snapshot() const {
    std::vector<uint8_t> out;
    (void)snapshot(out);
    return out;
  }
  uint64_t state_hash() const {
    uint64_t out = 0;
    (void)state_hash(out);
    return out;
  }
  DVec3 origin() const {
    DVec3 out{};
    (void)origin(out);
    return out;
  }
#endif

  // ---- Water: each setter replaces the previous water.
  Status set_water_flat(float level = 0.0f) {
    return replaced_water(keel_water_set_flat(handle_, level));
  }
  Status set_water_perlin(const PerlinWaterDesc &desc = default_perlin_water_desc()) {
    return replaced_water(keel_water_set_perlin(handle_, &desc));
  }
  Status set_water_gerstner(Span<const GerstnerWave> waves, float level = 0.0f) {
    if (!detail::fits_u32(waves.size())) {
      return detail::too_many("keel_water_set_gerstner", "waves");
    }
    return replaced_water(keel_water_set_gerstner(handle_, waves.data(),
                                                  static_cast<uint32_t>(waves.size()), level));
  }
  // world.set_water_gerstner({swell, chop}).
  Status set_water_gerstner(std::initializer_list<GerstnerWave> waves, float level = 0.0f) {
    return set_water_gerstner(Span<const GerstnerWave>(waves.begin(), waves.size()), level);
  }
  Status set_water_spectrum(Spectrum spectrum, float wind_speed, float direction_x,
                            float direction_z, uint32_t wave_count, uint64_t seed) {
    return replaced_water(keel_water_set_spectrum(handle_, spectrum, wind_speed, direction_x,
                                                  direction_z, wave_count, seed));
  }
  // heights[iz * count_x + ix]; the data are copied.
  Status set_water_heightfield(Span<const float> heights, uint32_t count_x, uint32_t count_z,
                               float origin_x, float origin_z, float cell_size) {
    if (Status s = heightfield_size(heights, count_x, count_z); !s) {
      return s;
    }
    return replaced_water(keel_water_set_heightfield(handle_, heights.data(), count_x, count_z,
                                                     origin_x, origin_z, cell_size));
  }
  Status set_water_tiled_heightfield(Span<const float> heights, uint32_t count_x,
                                     uint32_t count_z, float origin_x, float origin_z,
                                     float cell_size) {
    if (Status s = heightfield_size(heights, count_x, count_z); !s) {
      return s;
    }
    return replaced_water(keel_water_set_tiled_heightfield(handle_, heights.data(), count_x,
                                                           count_z, origin_x, origin_z,
                                                           cell_size));
  }
  // The C callback as it is: `user_data` must outlive its use by the world.
  Status set_water_callback(WaterQuery query, void *user_data) {
    return replaced_water(keel_water_set_callback(handle_, query, user_data));
  }
  // The host's water as any callable
  //   void(const Vec3 *points, uint32_t count, float *out_heights,
  //        Vec3 *out_normals /* may be null */, Vec3 *out_velocities /* may be null */)
  // kept alive by this World until the water is replaced or the world destroyed. An
  // exception thrown by it fails the step that asked (heights become NaN, which keel
  // refuses with KEEL_ERROR_INVALID_ARGUMENT) instead of crossing the C library.
  template <class F>
  Status set_water(F &&query) {
    using Stored = std::decay_t<F>;
    auto holder = std::make_unique<Holder<Stored>>(std::forward<F>(query));
    Status status =
        detail::check(keel_water_set_callback(handle_, &Holder<Stored>::trampoline, holder.get()));
    if (status) {
      water_ = std::move(holder);
    }
    return status;
  }

  // Surface heights (and optionally normals and particle velocities) under the points'
  // (x, z) at the world's time. The outputs hold at least points.size() elements; pass
  // an empty span to skip normals or velocities.
  Status sample_water(Span<const Vec3> points, Span<float> out_heights,
                      Span<Vec3> out_normals = {}, Span<Vec3> out_velocities = {}) const {
    const std::size_t n = points.size();
    if (!detail::fits_u32(n)) {
      return detail::too_many("keel_water_sample", "points");
    }
    if (out_heights.size() < n || (!out_normals.empty() && out_normals.size() < n) ||
        (!out_velocities.empty() && out_velocities.size() < n)) {
      return detail::fail(KEEL_ERROR_BUFFER_TOO_SMALL,
                          "keel_water_sample: an output holds fewer elements than points");
    }
    return detail::check(keel_water_sample(
        handle_, points.data(), static_cast<uint32_t>(n), out_heights.data(),
        out_normals.empty() ? nullptr : out_normals.data(),
        out_velocities.empty() ? nullptr : out_velocities.data()));
  }
#ifndef KEEL_NO_EXCEPTIONS
  // The surface height under one point.
  float water_height(Vec3 point) const {
    float height = 0.0f;
    (void)sample_water(Span<const Vec3>(&point, 1), Span<float>(&height, 1));
    return height;
  }
#endif

  // Forces for many bodies at once (keel_world_step): bodies[i] with states[i] into
  // out_forces[i]. Body::handle() gives the handles.
  Status step(Span<const KeelBody> bodies, Span<const BodyState> states, float dt,
              Span<BodyForces> out_forces) {
    const std::size_t n = bodies.size();
    if (!detail::fits_u32(n)) {
      return detail::too_many("keel_world_step", "bodies");
    }
    if (states.size() != n || out_forces.size() < n) {
      return detail::fail(KEEL_ERROR_INVALID_ARGUMENT,
                          "keel_world_step: states must hold one element per body and "
                          "out_forces at least as many");
    }
    return detail::check(keel_world_step(handle_, bodies.data(), states.data(),
                                         static_cast<uint32_t>(n), dt, out_forces.data()));
  }

private:
  struct WaterHolder {
    virtual ~WaterHolder() = default;
  };
  template <class F>
  struct Holder final : WaterHolder {
    template <class G>
    explicit Holder(G &&g) : query(std::forward<G>(g)) {}
    static void trampoline(void *user_data, const KeelVec3 *points, uint32_t count,
                           float *out_heights, KeelVec3 *out_normals,
                           KeelVec3 *out_velocities) noexcept {
      auto *self = static_cast<Holder *>(user_data);
#if defined(__cpp_exceptions) || defined(_CPPUNWIND)
      try {
        self->query(points, count, out_heights, out_normals, out_velocities);
      } catch (...) {
        for (uint32_t i = 0; i < count; ++i) {
          out_heights[i] = std::numeric_limits<float>::quiet_NaN();
        }
      }
#else
      self->query(points, count, out_heights, out_normals, out_velocities);
#endif
    }
    F query;
  };

  // A water setter that succeeded replaced any callable this World was keeping alive.
  Status replaced_water(KeelStatus code) {
    Status status = detail::check(code);
    if (status) {
      water_.reset();
    }
    return status;
  }

  static Status heightfield_size(Span<const float> heights, uint32_t count_x, uint32_t count_z) {
    if (static_cast<uint64_t>(count_x) * count_z > heights.size()) {
      return detail::fail(KEEL_ERROR_INVALID_ARGUMENT,
                          "keel_water_set_heightfield: heights holds fewer than count_x * count_z "
                          "samples");
    }
    return Status();
  }

  KeelWorld handle_ = 0;
  std::unique_ptr<WaterHolder> water_;
};

// ------------------------------------------------------------------------------------
// Hull.

// A hull's inertia at uniform density about its centroid: principal moments (kg m^2)
// and the rotation from body axes to the principal frame.
struct Inertia {
  Vec3 principal;
  Quat rotation;
};

// A triangle mesh of a world. Owns its handle; destroying it fails (quietly, in the
// destructor) while a body uses it, so bodies should die first.
class Hull {
public:
  Hull() noexcept = default;

  static Status create(const World &world, const HullDesc &desc, Hull &out) {
    KeelHull handle = 0;
    Status status = detail::check(keel_hull_create(world.handle(), &desc, &handle));
    if (status) {
      out = adopt(world.handle(), handle);
    }
    return status;
  }
  static Status create(const World &world, Span<const Vec3> vertices, Span<const uint32_t> indices,
                       bool flip_winding, Hull &out) {
    if (!detail::fits_u32(vertices.size()) || !detail::fits_u32(indices.size())) {
      return detail::too_many("keel_hull_create", "the mesh");
    }
    HullDesc desc{};
    desc.vertices = vertices.data();
    desc.vertex_count = static_cast<uint32_t>(vertices.size());
    desc.indices = indices.data();
    desc.index_count = static_cast<uint32_t>(indices.size());
    desc.flip_winding = flip_winding;
    return create(world, desc, out);
  }
  // A box of full extents `size` centred on the body origin.
  static Status create_box(const World &world, Vec3 size, Hull &out) {
    KeelHull handle = 0;
    Status status = detail::check(keel_hull_create_box(world.handle(), size, &handle));
    if (status) {
      out = adopt(world.handle(), handle);
    }
    return status;
  }
#ifndef KEEL_NO_EXCEPTIONS
  static Hull create(const World &world, const HullDesc &desc) {
    Hull hull;
    (void)create(world, desc, hull);
    return hull;
  }
  static Hull create(const World &world, Span<const Vec3> vertices, Span<const uint32_t> indices,
                     bool flip_winding = false) {
    Hull hull;
    (void)create(world, vertices, indices, flip_winding, hull);
    return hull;
  }
  static Hull create_box(const World &world, Vec3 size) {
    Hull hull;
    (void)create_box(world, size, hull);
    return hull;
  }
#endif
  static Hull adopt(KeelWorld world, KeelHull handle) noexcept {
    Hull hull;
    hull.world_ = world;
    hull.handle_ = handle;
    return hull;
  }

  Hull(const Hull &) = delete;
  Hull &operator=(const Hull &) = delete;
  Hull(Hull &&other) noexcept
      : world_(std::exchange(other.world_, 0)), handle_(std::exchange(other.handle_, 0)) {}
  Hull &operator=(Hull &&other) noexcept {
    if (this != &other) {
      reset();
      world_ = std::exchange(other.world_, 0);
      handle_ = std::exchange(other.handle_, 0);
    }
    return *this;
  }
  ~Hull() { reset(); }

  KeelHull handle() const noexcept { return handle_; }
  KeelWorld world() const noexcept { return world_; }
  explicit operator bool() const noexcept { return handle_ != 0; }
  KeelHull release() noexcept {
    world_ = 0;
    return std::exchange(handle_, 0);
  }
  void reset() noexcept {
    if (handle_ != 0) {
      (void)keel_hull_destroy(world_, handle_);
      handle_ = 0;
      world_ = 0;
    }
  }

  Status info(HullInfo &out) const {
    return detail::check(keel_hull_get_info(world_, handle_, &out));
  }
  Status inertia(float mass, Inertia &out) const {
    return detail::check(
        keel_hull_get_inertia(world_, handle_, mass, &out.principal, &out.rotation));
  }
#ifndef KEEL_NO_EXCEPTIONS
  HullInfo info() const {
    HullInfo out{};
    (void)info(out);
    return out;
  }
  Inertia inertia(float mass) const {
    Inertia out{};
    (void)inertia(mass, out);
    return out;
  }
#endif

private:
  KeelWorld world_ = 0;
  KeelHull handle_ = 0;
};

// ------------------------------------------------------------------------------------
// Body.

// A floating body of a world. Owns its handle.
class Body {
public:
  Body() noexcept = default;

  static Status create(const World &world, const BodyDesc &desc, Body &out) {
    KeelBody handle = 0;
    Status status = detail::check(keel_body_create(world.handle(), &desc, &handle));
    if (status) {
      out = adopt(world.handle(), handle);
    }
    return status;
  }
#ifndef KEEL_NO_EXCEPTIONS
  static Body create(const World &world, const BodyDesc &desc) {
    Body body;
    (void)create(world, desc, body);
    return body;
  }
#endif
  static Body adopt(KeelWorld world, KeelBody handle) noexcept {
    Body body;
    body.world_ = world;
    body.handle_ = handle;
    return body;
  }

  Body(const Body &) = delete;
  Body &operator=(const Body &) = delete;
  Body(Body &&other) noexcept
      : world_(std::exchange(other.world_, 0)), handle_(std::exchange(other.handle_, 0)) {}
  Body &operator=(Body &&other) noexcept {
    if (this != &other) {
      reset();
      world_ = std::exchange(other.world_, 0);
      handle_ = std::exchange(other.handle_, 0);
    }
    return *this;
  }
  ~Body() { reset(); }

  KeelBody handle() const noexcept { return handle_; }
  KeelWorld world() const noexcept { return world_; }
  explicit operator bool() const noexcept { return handle_ != 0; }
  KeelBody release() noexcept {
    world_ = 0;
    return std::exchange(handle_, 0);
  }
  void reset() noexcept {
    if (handle_ != 0) {
      (void)keel_body_destroy(world_, handle_);
      handle_ = 0;
      world_ = 0;
    }
  }

  Status set_desc(const BodyDesc &desc) {
    return detail::check(keel_body_set_desc(world_, handle_, &desc));
  }
  Status desc(BodyDesc &out) const { return detail::check(keel_body_get_desc(world_, handle_, &out)); }

  // Forces of one fixed step of length dt from `state`.
  Status step(const BodyState &state, float dt, BodyForces &out) {
    return detail::check(keel_body_step(world_, handle_, &state, dt, &out));
  }

  // The pose at which the body floats at rest on flat water, from in_out_state's
  // horizontal position and heading (keel_body_find_equilibrium).
  Status find_equilibrium(Vec3 center_of_mass_local, BodyState &in_out_state) const {
    return detail::check(
        keel_body_find_equilibrium(world_, handle_, center_of_mass_local, &in_out_state));
  }

  // ---- Rollback: the body's slamming history and whether it has a last step. Restores
  // into this body or any body of a hull of the same geometry, in any world; another
  // geometry is refused with KEEL_ERROR_INVALID_ARGUMENT.
  Status snapshot(std::vector<uint8_t> &out) const {
    return detail::fetch_detail(out, [this](uint8_t *p, uint32_t cap, uint32_t *size) {
      return keel_body_snapshot(world_, handle_, p, cap, size);
    });
  }
  Status restore(Span<const uint8_t> data) {
    if (!detail::fits_u32(data.size())) {
      return detail::too_many("keel_body_restore", "data");
    }
    return detail::check(
        keel_body_restore(world_, handle_, data.data(), static_cast<uint32_t>(data.size())));
  }

  // ---- Detail of the last step (two-call pattern; `out`'s capacity is reused).
  Status triangle_forces(std::vector<TriangleForce> &out) const {
    return detail::fetch_detail(out, [this](TriangleForce *p, uint32_t cap, uint32_t *count) {
      return keel_body_get_triangle_forces(world_, handle_, p, cap, count);
    });
  }
  // 3 vertices per triangle.
  Status submerged_triangles(std::vector<Vec3> &out) const {
    return detail::fetch_detail(out, [this](Vec3 *p, uint32_t cap, uint32_t *count) {
      return keel_body_get_submerged_triangles(world_, handle_, p, cap, count);
    });
  }
  // 3 vertices per triangle.
  Status emerged_triangles(std::vector<Vec3> &out) const {
    return detail::fetch_detail(out, [this](Vec3 *p, uint32_t cap, uint32_t *count) {
      return keel_body_get_emerged_triangles(world_, handle_, p, cap, count);
    });
  }
  // 2 points per segment.
  Status waterline(std::vector<Vec3> &out) const {
    return detail::fetch_detail(out, [this](Vec3 *p, uint32_t cap, uint32_t *count) {
      return keel_body_get_waterline(world_, handle_, p, cap, count);
    });
  }

#ifndef KEEL_NO_EXCEPTIONS
  BodyDesc desc() const {
    BodyDesc out{};
    (void)desc(out);
    return out;
  }
  BodyForces step(const BodyState &state, float dt) {
    BodyForces out{};
    (void)step(state, dt, out);
    return out;
  }
  BodyState equilibrium(Vec3 center_of_mass_local, BodyState start) const {
    (void)find_equilibrium(center_of_mass_local, start);
    return start;
  }
  std::vector<uint8_t> snapshot() const {
    std::vector<uint8_t> out;
    (void)snapshot(out);
    return out;
  }
  std::vector<TriangleForce> triangle_forces() const {
    std::vector<TriangleForce> out;
    (void)triangle_forces(out);
    return out;
  }
  std::vector<Vec3> submerged_triangles() const {
    std::vector<Vec3> out;
    (void)submerged_triangles(out);
    return out;
  }
  std::vector<Vec3> emerged_triangles() const {
    std::vector<Vec3> out;
    (void)emerged_triangles(out);
    return out;
  }
  std::vector<Vec3> waterline() const {
    std::vector<Vec3> out;
    (void)waterline(out);
    return out;
  }
#endif

private:
  KeelWorld world_ = 0;
  KeelBody handle_ = 0;
};

} // namespace keel

#endif // KEEL_HPP
