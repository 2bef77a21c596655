/*
 * host_tasks_test.c: a host's job system, through include/keel.h alone (issue 34).
 *
 * keel.h promises that enqueue_task is called from the thread that called keel_world_step
 * or keel_body_step, never from inside one of keel's own tasks. Checked with three job
 * systems, each stepping a 9-body batch that holds the Stanford bunny (a big hull, whose
 * step alone is shared among the host's workers), then the bunny alone (keel_body_step
 * and a keel_world_step of one):
 *   - a pool of one worker whose finish_task only waits: a call from inside a task waits
 *     for itself, so the scene runs on a thread of its own and the program fails after
 *     60 s instead of hanging;
 *   - a serial executor (enqueue_task runs the task and returns NULL);
 *   - a pool of three workers whose finish_task helps run the ranges;
 * every call recorded with its thread and whether that thread was inside a task. The
 * forces must be the bits of a world of keel's own single thread.
 *
 * Built and run by tests/c_abi.rs (also under valgrind):
 *   cc -std=c99 ... -I include tests/c/host_tasks_test.c libkeel.a -lpthread -ldl -lm
 *   ./host_tasks_test tests/meshes/bunny.obj
 * Prints every failed check, then one closing line "N passed, M failed".
 */

#define _POSIX_C_SOURCE 200809L

#include "keel.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_checks = 0;
static int g_failures = 0;

#define CHECK(cond, what)                                                                   \
  do {                                                                                      \
    g_checks++;                                                                             \
    if (!(cond)) {                                                                          \
      char message_[512];                                                                   \
      keel_last_error_message(message_, sizeof message_);                                   \
      g_failures++;                                                                         \
      printf("%s:%d: FAILED: %s (%s) (keel_last_error_message: \"%s\")\n", __FILE__,       \
             __LINE__, #cond, what, message_);                                              \
      fflush(stdout);                                                                       \
    }                                                                                       \
  } while (0)

static void summary(void) {
  printf("%d passed, %d failed\n", g_checks - g_failures, g_failures);
  fflush(stdout);
}

/* ------------------------------------------------------------------------------------ */
/* The bunny                                                                            */

static KeelVec3 *g_vertices = NULL;
static uint32_t g_vertex_count = 0;
static uint32_t *g_indices = NULL;
static uint32_t g_index_count = 0;

/* "v x y z" and "f a b c" lines (the file's only kinds), scaled by 0.1: about 1 m tall. */
static int load_bunny(const char *path) {
  FILE *f = fopen(path, "r");
  char line[256];
  uint32_t v_cap = 4096, i_cap = 3 * 8192;
  if (f == NULL) {
    return 0;
  }
  g_vertices = malloc(v_cap * sizeof *g_vertices);
  g_indices = malloc(i_cap * sizeof *g_indices);
  while (g_vertices != NULL && g_indices != NULL && fgets(line, sizeof line, f) != NULL) {
    float x, y, z;
    unsigned a, b, c;
    if (sscanf(line, "v %f %f %f", &x, &y, &z) == 3 && g_vertex_count < v_cap) {
      KeelVec3 p;
      p.x = 0.1f * x;
      p.y = 0.1f * y;
      p.z = 0.1f * z;
      g_vertices[g_vertex_count++] = p;
    } else if (sscanf(line, "f %u %u %u", &a, &b, &c) == 3 && g_index_count + 3 <= i_cap) {
      g_indices[g_index_count++] = a - 1;
      g_indices[g_index_count++] = b - 1;
      g_indices[g_index_count++] = c - 1;
    }
  }
  fclose(f);
  return g_vertex_count > 1000 && g_index_count > 3 * 1024;
}

/* ------------------------------------------------------------------------------------ */
/* What a job system saw                                                                */

/* Set (to a non-NULL value) on a thread while it runs one of keel's task ranges. */
static pthread_key_t g_in_task;
/* The thread that calls keel_world_step / keel_body_step. */
static pthread_t g_stepper;

typedef struct Calls {
  pthread_mutex_t lock;
  unsigned enqueues;
  unsigned finishes;
  /* Calls from inside one of keel's tasks, or from another thread than the stepper. */
  unsigned nested;
  unsigned off_stepper;
  unsigned ranges_off_stepper;
} Calls;

static void calls_init(Calls *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->lock, NULL);
}

static void note(Calls *c, int finish) {
  int nested = pthread_getspecific(g_in_task) != NULL;
  int off = !pthread_equal(pthread_self(), g_stepper);
  pthread_mutex_lock(&c->lock);
  if (finish) {
    c->finishes++;
  } else {
    c->enqueues++;
  }
  c->nested += (unsigned)nested;
  c->off_stepper += (unsigned)off;
  pthread_mutex_unlock(&c->lock);
}

static void run_range(Calls *c, KeelTaskFn task, uint32_t start, uint32_t end, uint32_t worker,
                      void *context) {
  void *was = pthread_getspecific(g_in_task);
  pthread_setspecific(g_in_task, (void *)1);
  task(start, end, worker, context);
  pthread_setspecific(g_in_task, was);
  if (!pthread_equal(pthread_self(), g_stepper)) {
    pthread_mutex_lock(&c->lock);
    c->ranges_off_stepper++;
    pthread_mutex_unlock(&c->lock);
  }
}

/* ------------------------------------------------------------------------------------ */
/* A serial executor                                                                    */

static void *serial_enqueue(KeelTaskFn task, uint32_t item_count, uint32_t min_range,
                            void *task_context, void *user_context) {
  Calls *c = user_context;
  uint32_t step = min_range > 0 ? min_range : 1, start;
  note(c, 0);
  for (start = 0; start < item_count; start += step) {
    uint32_t end = start + step < item_count ? start + step : item_count;
    run_range(c, task, start, end, 0, task_context);
  }
  return NULL; /* run in full: finish_task is not called */
}

static void serial_finish(void *user_task, void *user_context) {
  Calls *c = user_context;
  (void)user_task;
  note(c, 1);
  pthread_mutex_lock(&c->lock);
  c->nested += 1000; /* keel called finish_task for a task that returned NULL */
  pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------------------------------ */
/* A pool of worker threads                                                             */

typedef struct Job {
  KeelTaskFn task;
  void *context;
  uint32_t item_count, step, next, left;
  pthread_cond_t done;
  struct Job *queued; /* the next job in the queue */
} Job;

typedef struct Pool {
  Calls calls;
  pthread_mutex_t lock;
  pthread_cond_t ready;
  Job *head, *tail;
  int exit;
  int helping; /* whether finish_task runs ranges too, or only waits */
  uint32_t workers;
  pthread_t threads[8];
} Pool;

/* Takes the next range of the first job (the pool's lock held); 0 when there is none. */
static int take_range(Pool *p, Job **job, uint32_t *start, uint32_t *end) {
  Job *j = p->head;
  if (j == NULL) {
    return 0;
  }
  *job = j;
  *start = j->next;
  *end = j->next + j->step < j->item_count ? j->next + j->step : j->item_count;
  j->next = *end;
  if (j->next >= j->item_count) {
    p->head = j->queued;
    if (p->head == NULL) {
      p->tail = NULL;
    }
  }
  return 1;
}

static void range_done(Pool *p, Job *j, uint32_t start, uint32_t end) {
  pthread_mutex_lock(&p->lock);
  j->left -= end - start;
  if (j->left == 0) {
    pthread_cond_broadcast(&j->done);
  }
  pthread_mutex_unlock(&p->lock);
}

typedef struct Worker {
  Pool *pool;
  uint32_t index;
} Worker;

static Worker g_workers[8];

static void *worker_main(void *arg) {
  Worker *w = arg;
  Pool *p = w->pool;
  for (;;) {
    Job *j = NULL;
    uint32_t start = 0, end = 0;
    int taken;
    pthread_mutex_lock(&p->lock);
    while (!(taken = take_range(p, &j, &start, &end)) && !p->exit) {
      pthread_cond_wait(&p->ready, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    if (!taken) {
      return NULL;
    }
    run_range(&p->calls, j->task, start, end, w->index, j->context);
    range_done(p, j, start, end);
  }
}

static void *pool_enqueue(KeelTaskFn task, uint32_t item_count, uint32_t min_range,
                          void *task_context, void *user_context) {
  Pool *p = user_context;
  Job *j;
  note(&p->calls, 0);
  if (item_count == 0) {
    return NULL;
  }
  j = calloc(1, sizeof *j);
  if (j == NULL) {
    return NULL; /* (then nothing ran: keel runs what the host did not) */
  }
  j->task = task;
  j->context = task_context;
  j->item_count = item_count;
  j->step = min_range > 0 ? min_range : 1;
  j->left = item_count;
  pthread_cond_init(&j->done, NULL);
  pthread_mutex_lock(&p->lock);
  if (p->tail != NULL) {
    p->tail->queued = j;
  } else {
    p->head = j;
  }
  p->tail = j;
  pthread_cond_broadcast(&p->ready);
  pthread_mutex_unlock(&p->lock);
  return j;
}

static void pool_finish(void *user_task, void *user_context) {
  Pool *p = user_context;
  Job *j = user_task;
  note(&p->calls, 1);
  pthread_mutex_lock(&p->lock);
  while (j->left > 0) {
    Job *taken;
    uint32_t start, end;
    /* Helping: the caller runs ranges of its own job while there are some. */
    if (p->helping && p->head == j && take_range(p, &taken, &start, &end)) {
      pthread_mutex_unlock(&p->lock);
      run_range(&p->calls, taken->task, start, end, 0, taken->context);
      range_done(p, taken, start, end);
      pthread_mutex_lock(&p->lock);
      continue;
    }
    pthread_cond_wait(&j->done, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  pthread_cond_destroy(&j->done);
  free(j);
}

static void pool_start(Pool *p, uint32_t workers, int helping) {
  uint32_t i;
  memset(p, 0, sizeof *p);
  calls_init(&p->calls);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->ready, NULL);
  p->workers = workers;
  p->helping = helping;
  for (i = 0; i < workers; i++) {
    g_workers[i].pool = p;
    g_workers[i].index = i;
    pthread_create(&p->threads[i], NULL, worker_main, &g_workers[i]);
  }
}

static void pool_stop(Pool *p) {
  uint32_t i;
  pthread_mutex_lock(&p->lock);
  p->exit = 1;
  pthread_cond_broadcast(&p->ready);
  pthread_mutex_unlock(&p->lock);
  for (i = 0; i < p->workers; i++) {
    pthread_join(p->threads[i], NULL);
  }
  pthread_cond_destroy(&p->ready);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->calls.lock);
}

/* ------------------------------------------------------------------------------------ */
/* The scene                                                                            */

#define BODIES 9
#define BUNNY 8
#define FRAMES 3
/* 3 frames of the batch, then 3 of the bunny alone and 3 of a batch of the bunny. */
#define RESULTS (FRAMES * BODIES + 2 * FRAMES)

static KeelBodyState state(int i, int frame) {
  KeelBodyState s;
  float t = (float)frame / 60.0f;
  memset(&s, 0, sizeof s);
  s.position.x = 4.0f * (float)i;
  s.position.y = -0.15f + 0.05f * t;
  s.rotation.y = 0.1f * (float)i;
  s.rotation.w = 1.0f;
  s.linear_velocity.x = 0.4f;
  s.linear_velocity.y = -0.5f;
  s.angular_velocity.x = 0.2f;
  s.angular_velocity.y = 0.5f;
  s.center_of_mass = s.position;
  return s;
}

/* Builds the scene in a world of `desc` and steps it; 1 if every call succeeded. */
static int run_scene(const KeelWorldDesc *desc, KeelBodyForces *out) {
  KeelWorld w = 0;
  KeelHull cube = 0, rabbit = 0;
  KeelBody bodies[BODIES];
  KeelBodyState states[BODIES];
  KeelGerstnerWave wave;
  KeelHullDesc hull;
  KeelBodyDesc body;
  KeelVec3 size;
  int ok = 1, i, frame, n = 0;
  if (keel_world_create(desc, &w) != KEEL_OK) {
    return 0;
  }
  memset(&wave, 0, sizeof wave);
  wave.amplitude = 0.4f;
  wave.wavelength = 11.0f;
  wave.direction_x = 1.0f;
  wave.direction_z = 0.3f;
  wave.steepness = 0.4f;
  ok &= keel_water_set_gerstner(w, &wave, 1, 0.0f) == KEEL_OK;
  ok &= keel_world_set_time(w, 3.0) == KEEL_OK;
  size.x = 1.2f;
  size.y = 0.6f;
  size.z = 0.9f;
  ok &= keel_hull_create_box(w, size, &cube) == KEEL_OK;
  memset(&hull, 0, sizeof hull);
  hull.vertices = g_vertices;
  hull.vertex_count = g_vertex_count;
  hull.indices = g_indices;
  hull.index_count = g_index_count;
  ok &= keel_hull_create(w, &hull, &rabbit) == KEEL_OK;
  for (i = 0; i < BODIES; i++) {
    keel_body_desc_default(&body);
    body.hull = i == BUNNY ? rabbit : cube;
    body.mass = i == BUNNY ? 30.0f : 300.0f;
    ok &= keel_body_create(w, &body, &bodies[i]) == KEEL_OK;
  }
  for (frame = 0; ok && frame < FRAMES; frame++) {
    for (i = 0; i < BODIES; i++) {
      states[i] = state(i, frame);
    }
    ok &= keel_world_step(w, bodies, states, BODIES, 1.0f / 60.0f, out + n) == KEEL_OK;
    n += BODIES;
  }
  for (frame = FRAMES; ok && frame < 2 * FRAMES; frame++) {
    KeelBodyState s = state(BUNNY, frame);
    ok &= keel_body_step(w, bodies[BUNNY], &s, 1.0f / 60.0f, out + n++) == KEEL_OK;
    ok &= keel_world_step(w, &bodies[BUNNY], &s, 1, 1.0f / 60.0f, out + n++) == KEEL_OK;
  }
  keel_world_destroy(w);
  return ok;
}

/* The scene on a thread of its own, so that a deadlock fails the program. */
typedef struct SceneRun {
  KeelWorldDesc desc;
  KeelBodyForces *out;
  int ok;
  int finished;
  pthread_mutex_t lock;
  pthread_cond_t done;
} SceneRun;

static void *scene_main(void *arg) {
  SceneRun *r = arg;
  int ok;
  g_stepper = pthread_self();
  ok = run_scene(&r->desc, r->out);
  pthread_mutex_lock(&r->lock);
  r->ok = ok;
  r->finished = 1;
  pthread_cond_signal(&r->done);
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

static int run_with_limit(const KeelWorldDesc *desc, KeelBodyForces *out, const char *what) {
  SceneRun r;
  pthread_t thread;
  struct timespec deadline;
  int waited = 0;
  memset(&r, 0, sizeof r);
  r.desc = *desc;
  r.out = out;
  pthread_mutex_init(&r.lock, NULL);
  pthread_cond_init(&r.done, NULL);
  pthread_create(&thread, NULL, scene_main, &r);
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 60;
  pthread_mutex_lock(&r.lock);
  while (!r.finished && waited != ETIMEDOUT) {
    waited = pthread_cond_timedwait(&r.done, &r.lock, &deadline);
  }
  pthread_mutex_unlock(&r.lock);
  if (!r.finished) {
    printf("%s: FAILED: the scene did not finish within 60 s: keel waits for a task inside "
           "a task\n",
           what);
    g_checks++;
    g_failures++;
    summary();
    _exit(1);
  }
  pthread_join(thread, NULL);
  pthread_cond_destroy(&r.done);
  pthread_mutex_destroy(&r.lock);
  return r.ok;
}

static int same_forces(const KeelBodyForces *a, const KeelBodyForces *b) {
  int k;
  for (k = 0; k < RESULTS; k++) {
    if (memcmp(&a[k].force, &b[k].force, sizeof a[k].force) != 0 ||
        memcmp(&a[k].torque, &b[k].torque, sizeof a[k].torque) != 0 ||
        memcmp(&a[k].submerged_volume, &b[k].submerged_volume, sizeof(float)) != 0) {
      printf("  result %d differs: force y %.9g vs %.9g\n", k, (double)a[k].force.y,
             (double)b[k].force.y);
      return 0;
    }
  }
  return 1;
}

static void check_calls(const Calls *c, const char *what) {
  printf("%s: %u enqueue_task, %u finish_task, %u from inside a task, %u off the stepping "
         "thread; %u ranges run off it\n",
         what, c->enqueues, c->finishes, c->nested, c->off_stepper, c->ranges_off_stepper);
  CHECK(c->enqueues > 0, what);
  CHECK(c->nested == 0, what);
  CHECK(c->off_stepper == 0, what);
}

int main(int argc, char **argv) {
  static KeelBodyForces reference[RESULTS], got[RESULTS];
  KeelWorldDesc desc;
  Calls serial;
  Pool pool;
  uint32_t workers;
  if (argc < 2 || !load_bunny(argv[1])) {
    printf("cannot read the bunny from %s\n", argc < 2 ? "(no path given)" : argv[1]);
    return 2;
  }
  pthread_key_create(&g_in_task, NULL);

  keel_world_desc_default(&desc);
  desc.thread_count = 1;
  CHECK(run_with_limit(&desc, reference, "keel's own thread"), "keel's own thread");
  CHECK(reference[0].force.y > 0.0f && reference[RESULTS - 1].force.y != 0.0f, "forces felt");

  /* A serial executor. */
  calls_init(&serial);
  keel_world_desc_default(&desc);
  desc.enqueue_task = serial_enqueue;
  desc.finish_task = serial_finish;
  desc.user_task_context = &serial;
  desc.worker_count = 1;
  memset(got, 0, sizeof got);
  CHECK(run_with_limit(&desc, got, "serial"), "serial");
  CHECK(same_forces(reference, got), "serial");
  check_calls(&serial, "serial");
  CHECK(serial.finishes == 0, "finish_task is not called for a task enqueue_task ran in full");
  pthread_mutex_destroy(&serial.lock);

  /* A pool of three whose finish helps: the stepping thread runs ranges too. */
  pool_start(&pool, 3, 1);
  keel_world_desc_default(&desc);
  desc.enqueue_task = pool_enqueue;
  desc.finish_task = pool_finish;
  desc.user_task_context = &pool;
  desc.worker_count = 4;
  memset(got, 0, sizeof got);
  CHECK(run_with_limit(&desc, got, "a helping pool of 3"), "a helping pool of 3");
  CHECK(same_forces(reference, got), "a helping pool of 3");
  check_calls(&pool.calls, "a helping pool of 3");
  pool_stop(&pool);

  /* Last (a deadlock ends the program): a pool of one worker whose finish only waits. */
  for (workers = 1; workers <= 2; workers++) {
    char what[64];
    snprintf(what, sizeof what, "a waiting pool of %u", (unsigned)workers);
    pool_start(&pool, workers, 0);
    keel_world_desc_default(&desc);
    desc.enqueue_task = pool_enqueue;
    desc.finish_task = pool_finish;
    desc.user_task_context = &pool;
    desc.worker_count = workers;
    memset(got, 0, sizeof got);
    CHECK(run_with_limit(&desc, got, what), what);
    CHECK(same_forces(reference, got), what);
    check_calls(&pool.calls, what);
    CHECK(pool.calls.ranges_off_stepper > 0, what);
    pool_stop(&pool);
  }

  pthread_key_delete(g_in_task);
  free(g_vertices);
  free(g_indices);
  summary();
  return g_failures == 0 ? 0 : 1;
}
