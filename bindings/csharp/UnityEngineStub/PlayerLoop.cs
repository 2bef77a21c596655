// The stand-in's player loop: Unity's message order for a scene whose frames each hold
// exactly one fixed step (Time.deltaTime == Time.fixedDeltaTime), so tests run seconds of
// FixedUpdates deterministically. Not part of Unity's API: only tests call it.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.Reflection;

namespace UnityEngine
{
    public static class StandInPlayerLoop
    {
        internal static readonly List<GameObject> Objects = new List<GameObject>();
        private static readonly List<Object> s_DestroyQueue = new List<Object>();
        private static readonly List<MonoBehaviour> s_Scratch = new List<MonoBehaviour>();
        private static readonly List<Rigidbody> s_Bodies = new List<Rigidbody>();

        internal static void Register(GameObject go) { Objects.Add(go); }

        internal static void OnComponentAdded(Component c)
        {
            var mb = c as MonoBehaviour;
            if (mb == null) return;
            mb.BindMessages();
            if (!mb.gameObject.activeInHierarchy) return;
            Awake(mb);
            if (mb.enabled) Enable(mb);
        }

        private static void Awake(MonoBehaviour mb)
        {
            if (mb.awoken) return;
            mb.awoken = true;
            mb.Send("Awake");
        }
        private static void Enable(MonoBehaviour mb)
        {
            if (mb.onEnableCalled || mb.destroyed) return;
            mb.onEnableCalled = true;
            mb.Send("OnEnable");
        }
        private static void Disable(MonoBehaviour mb)
        {
            if (!mb.onEnableCalled) return;
            mb.onEnableCalled = false;
            mb.Send("OnDisable");
        }

        internal static void OnEnabledChanged(Behaviour b, bool value)
        {
            var mb = b as MonoBehaviour;
            if (mb == null || !mb.gameObject.activeInHierarchy) return;
            Awake(mb);
            if (value) Enable(mb); else Disable(mb);
        }

        internal static void OnActiveChanged(GameObject go, bool value)
        {
            foreach (Component c in go.components.ToArray())
            {
                var mb = c as MonoBehaviour;
                if (mb == null || !mb.enabled) continue;
                if (value) { Awake(mb); Enable(mb); } else Disable(mb);
            }
        }

        internal static void QueueDestroy(Object obj) { if (!s_DestroyQueue.Contains(obj)) s_DestroyQueue.Add(obj); }

        internal static void DestroyNow(Object obj)
        {
            if (obj.destroyed) return;
            var go = obj as GameObject;
            if (go != null)
            {
                foreach (Transform child in Children(go.transform)) DestroyNow(child.gameObject);
                foreach (Component c in go.components.ToArray()) DestroyComponent(c);
                go.destroyed = true;
                Objects.Remove(go);
                return;
            }
            var comp = obj as Component;
            if (comp != null) { DestroyComponent(comp); comp.gameObject.components.Remove(comp); return; }
            obj.destroyed = true;
        }

        private static List<Transform> Children(Transform t)
        {
            var list = new List<Transform>();
            foreach (GameObject go in Objects) if (go.transform.parent == t) list.Add(go.transform);
            return list;
        }

        private static void DestroyComponent(Component c)
        {
            var mb = c as MonoBehaviour;
            if (mb != null)
            {
                Disable(mb);
                if (mb.awoken) mb.Send("OnDestroy");
            }
            c.destroyed = true;
        }

        /// Runs `frames` frames of one fixed step each.
        public static void Step(int frames)
        {
            for (int i = 0; i < frames; i++) Frame();
        }

        /// Runs frames until `seconds` of game time have passed.
        public static void Run(float seconds)
        {
            Step(Mathf.RoundToInt(seconds / Time.fixedDeltaTime));
        }

        private static void Frame()
        {
            float dt = Time.fixedDeltaTime;
            Time.s_DeltaTime = dt;
            Time.s_FrameCount++;
            Snapshot();
            foreach (MonoBehaviour mb in s_Scratch)
            {
                if (!mb.started && mb.isActiveAndEnabled) { mb.started = true; mb.Send("Start"); }
            }
            Time.s_InFixedStep = true;
            Time.s_FixedTime += dt;
            foreach (MonoBehaviour mb in s_Scratch)
                if (mb.fixedUpdate != null && mb.started && mb.isActiveAndEnabled) mb.fixedUpdate();
            s_Bodies.Clear();
            foreach (GameObject go in Objects)
                if (go.activeInHierarchy)
                    foreach (Component c in go.components)
                        if (c is Rigidbody && !c.destroyed) s_Bodies.Add((Rigidbody)c);
            foreach (Rigidbody rb in s_Bodies) rb.Integrate(dt);
            Time.s_InFixedStep = false;
            Time.s_Time = Time.s_FixedTime;
            foreach (MonoBehaviour mb in s_Scratch)
                if (mb.update != null && mb.started && mb.isActiveAndEnabled) mb.update();
            foreach (Object o in s_DestroyQueue.ToArray()) DestroyNow(o);
            s_DestroyQueue.Clear();
        }

        private static void Snapshot()
        {
            s_Scratch.Clear();
            foreach (GameObject go in Objects)
                foreach (Component c in go.components)
                    if (c is MonoBehaviour) s_Scratch.Add((MonoBehaviour)c);
        }

        /// Calls every OnDrawGizmos / OnDrawGizmosSelected, as the scene view would.
        public static void DrawGizmos()
        {
            Snapshot();
            foreach (MonoBehaviour mb in s_Scratch.ToArray())
            {
                mb.Send("OnDrawGizmos");
                mb.Send("OnDrawGizmosSelected");
            }
        }

        /// Entering play mode: the RuntimeInitializeOnLoadMethods in Unity's order.
        public static void EnterPlayMode()
        {
            RunInitializers(RuntimeInitializeLoadType.SubsystemRegistration);
            RunInitializers(RuntimeInitializeLoadType.AfterAssembliesLoaded);
            RunInitializers(RuntimeInitializeLoadType.BeforeSplashScreen);
            RunInitializers(RuntimeInitializeLoadType.BeforeSceneLoad);
            Time.s_LevelLoadTime = Time.s_Time;
            RunInitializers(RuntimeInitializeLoadType.AfterSceneLoad);
        }

        /// Leaving play mode (or quitting a player): Application.quitting, then every
        /// object of the scene is destroyed.
        public static void ExitPlayMode()
        {
            Application.RaiseQuitting();
            foreach (GameObject go in Objects.ToArray()) if (go.transform.parent == null) DestroyNow(go);
            Objects.Clear();
            s_DestroyQueue.Clear();
        }

        private static void RunInitializers(RuntimeInitializeLoadType type)
        {
            foreach (Assembly asm in AppDomain.CurrentDomain.GetAssemblies())
            {
                Type[] types;
                try { types = asm.GetTypes(); } catch (ReflectionTypeLoadException) { continue; }
                foreach (Type t in types)
                    foreach (MethodInfo m in t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic))
                    {
                        var attrs = m.GetCustomAttributes(typeof(RuntimeInitializeOnLoadMethodAttribute), false);
                        if (attrs.Length > 0 && ((RuntimeInitializeOnLoadMethodAttribute)attrs[0]).loadType == type)
                            m.Invoke(null, null);
                    }
            }
        }
    }
}
