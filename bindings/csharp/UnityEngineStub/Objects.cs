// Stand-in for UnityEngine's object model: Object, GameObject, Component, Behaviour,
// MonoBehaviour, Transform. Lifecycle messages are dispatched by StandInPlayerLoop.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.Reflection;

namespace UnityEngine
{
    public class Object
    {
        internal bool destroyed;
        public string name { get; set; }
        private static int s_NextId;
        private readonly int m_InstanceId = ++s_NextId;
        /// Unique per object for the session, as Unity's.
        public int GetInstanceID() { return m_InstanceId; }

        // Unity's "fake null": a destroyed object compares equal to null.
        public static bool operator ==(Object x, Object y)
        {
            bool xNull = ReferenceEquals(x, null) || x.destroyed;
            bool yNull = ReferenceEquals(y, null) || y.destroyed;
            if (xNull || yNull) return xNull && yNull;
            return ReferenceEquals(x, y);
        }
        public static bool operator !=(Object x, Object y) { return !(x == y); }
        public static implicit operator bool(Object exists) { return !(exists == null); }
        public override bool Equals(object other) { return ReferenceEquals(this, other); }
        public override int GetHashCode() { return base.GetHashCode(); }
        public override string ToString() { return name; }

        public static void Destroy(Object obj) { if (!ReferenceEquals(obj, null)) StandInPlayerLoop.QueueDestroy(obj); }
        public static void Destroy(Object obj, float t) { Destroy(obj); }
        public static void DestroyImmediate(Object obj) { if (!ReferenceEquals(obj, null)) StandInPlayerLoop.DestroyNow(obj); }

        public static T FindObjectOfType<T>() where T : Object
        {
            foreach (GameObject go in StandInPlayerLoop.Objects)
            {
                if (!go.activeInHierarchy) continue;
                foreach (Component c in go.components)
                    if (c is T && !c.destroyed) return (T)(Object)c;
            }
            return null;
        }
        public static T[] FindObjectsOfType<T>() where T : Object
        {
            var list = new List<T>();
            foreach (GameObject go in StandInPlayerLoop.Objects)
                foreach (Component c in go.components)
                    if (c is T && !c.destroyed && go.activeInHierarchy) list.Add((T)(Object)c);
            return list.ToArray();
        }
    }

    public sealed class GameObject : Object
    {
        internal readonly List<Component> components = new List<Component>();
        internal bool active = true;
        private readonly Transform m_Transform;

        public GameObject() : this("New Game Object") { }
        public GameObject(string name)
        {
            this.name = name;
            tag = "Untagged";
            m_Transform = new Transform();
            m_Transform.Attach(this);
            components.Add(m_Transform);
            StandInPlayerLoop.Register(this);
        }
        public GameObject(string name, params Type[] components) : this(name)
        {
            foreach (Type t in components) AddComponent(t);
        }

        public Transform transform { get { return m_Transform; } }
        public GameObject gameObject { get { return this; } }
        public string tag { get; set; }
        public bool activeSelf { get { return active; } }
        public bool activeInHierarchy
        {
            get { return active && !destroyed && (m_Transform.parent == null || m_Transform.parent.gameObject.activeInHierarchy); }
        }
        public bool CompareTag(string tag) { return this.tag == tag; }

        public T AddComponent<T>() where T : Component { return (T)AddComponent(typeof(T)); }
        public Component AddComponent(Type componentType)
        {
            foreach (object attr in componentType.GetCustomAttributes(typeof(RequireComponent), true))
            {
                var req = (RequireComponent)attr;
                foreach (Type t in new[] { req.m_Type0, req.m_Type1, req.m_Type2 })
                    if (t != null && GetComponent(t) == null) AddComponent(t);
            }
            var c = (Component)Activator.CreateInstance(componentType);
            c.Attach(this);
            components.Add(c);
            StandInPlayerLoop.OnComponentAdded(c);
            return c;
        }
        public T GetComponent<T>() { return (T)(object)GetComponent(typeof(T)); }
        public Component GetComponent(Type type)
        {
            foreach (Component c in components) if (!c.destroyed && type.IsInstanceOfType(c)) return c;
            return null;
        }
        public T[] GetComponents<T>()
        {
            var list = new List<T>();
            foreach (Component c in components) if (!c.destroyed && c is T) list.Add((T)(object)c);
            return list.ToArray();
        }
        public void SetActive(bool value)
        {
            if (active == value) return;
            active = value;
            StandInPlayerLoop.OnActiveChanged(this, value);
        }

        public static GameObject FindWithTag(string tag) { return FindGameObjectWithTag(tag); }
        public static GameObject FindGameObjectWithTag(string tag)
        {
            foreach (GameObject go in StandInPlayerLoop.Objects) if (go.activeInHierarchy && go.tag == tag) return go;
            return null;
        }
        public static GameObject Find(string name)
        {
            foreach (GameObject go in StandInPlayerLoop.Objects) if (go.activeInHierarchy && go.name == name) return go;
            return null;
        }

        private static Mesh s_Cube, s_Plane;

        public static GameObject CreatePrimitive(PrimitiveType type)
        {
            var go = new GameObject(type.ToString());
            // Unity shares one built-in mesh per primitive type between all primitives.
            if (type == PrimitiveType.Plane) { if (s_Plane == null) s_Plane = Mesh.CreatePlane(); }
            else if (s_Cube == null) s_Cube = Mesh.CreateCube();
            go.AddComponent<MeshFilter>().sharedMesh = type == PrimitiveType.Plane ? s_Plane : s_Cube;
            go.AddComponent<MeshRenderer>();
            return go;
        }
    }

    public enum PrimitiveType { Sphere = 0, Capsule = 1, Cylinder = 2, Cube = 3, Plane = 4, Quad = 5 }

    public class Component : Object
    {
        private GameObject m_GameObject;
        internal void Attach(GameObject go) { m_GameObject = go; name = go.name; }
        public GameObject gameObject { get { return m_GameObject; } }
        public Transform transform { get { return m_GameObject.transform; } }
        public string tag { get { return m_GameObject.tag; } set { m_GameObject.tag = value; } }
        public bool CompareTag(string tag) { return m_GameObject.CompareTag(tag); }
        public T GetComponent<T>() { return m_GameObject.GetComponent<T>(); }
        public Component GetComponent(Type type) { return m_GameObject.GetComponent(type); }
        public T GetComponentInParent<T>()
        {
            for (Transform t = transform; t != null; t = t.parent)
            {
                T found = t.gameObject.GetComponent<T>();
                if (found != null) return found;
            }
            return default(T);
        }
        public T[] GetComponents<T>() { return m_GameObject.GetComponents<T>(); }
    }

    public class Behaviour : Component
    {
        internal bool m_Enabled = true;
        public bool enabled
        {
            get { return m_Enabled; }
            set { if (m_Enabled == value) return; m_Enabled = value; StandInPlayerLoop.OnEnabledChanged(this, value); }
        }
        public bool isActiveAndEnabled { get { return m_Enabled && !destroyed && gameObject.activeInHierarchy; } }
    }

    public class MonoBehaviour : Behaviour
    {
        internal bool started;
        internal bool awoken;
        internal bool onEnableCalled;

        internal void Send(string message)
        {
            MethodInfo m = GetType().GetMethod(message, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (m != null && m.GetParameters().Length == 0) m.Invoke(this, null);
        }

        // Unity's message cache; the loop calls these without reflection on the hot path.
        internal Action fixedUpdate;
        internal Action update;
        internal void BindMessages()
        {
            fixedUpdate = Bind("FixedUpdate");
            update = Bind("Update");
        }
        private Action Bind(string message)
        {
            MethodInfo m = GetType().GetMethod(message, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            return m == null ? null : (Action)Delegate.CreateDelegate(typeof(Action), this, m);
        }
    }

    public sealed class Transform : Component
    {
        private Vector3 m_LocalPosition;
        private Quaternion m_LocalRotation = Quaternion.identity;
        private Vector3 m_LocalScale = Vector3.one;
        private Transform m_Parent;

        public Transform parent { get { return m_Parent; } set { SetParent(value); } }
        public void SetParent(Transform p) { SetParent(p, true); }
        public void SetParent(Transform p, bool worldPositionStays)
        {
            Vector3 pos = position;
            Quaternion rot = rotation;
            m_Parent = p;
            if (worldPositionStays) { position = pos; rotation = rot; }
        }

        public Vector3 localPosition { get { return m_LocalPosition; } set { m_LocalPosition = value; } }
        public Quaternion localRotation { get { return m_LocalRotation; } set { m_LocalRotation = value.normalized; } }
        public Vector3 localScale { get { return m_LocalScale; } set { m_LocalScale = value; } }

        public Vector3 position
        {
            get { return (object)m_Parent == null ? m_LocalPosition : m_Parent.TransformPoint(m_LocalPosition); }
            set { m_LocalPosition = (object)m_Parent == null ? value : m_Parent.InverseTransformPoint(value); }
        }
        public Quaternion rotation
        {
            get { return (object)m_Parent == null ? m_LocalRotation : m_Parent.rotation * m_LocalRotation; }
            set { m_LocalRotation = ((object)m_Parent == null ? value : Quaternion.Inverse(m_Parent.rotation) * value).normalized; }
        }
        public Vector3 lossyScale { get { return (object)m_Parent == null ? m_LocalScale : Vector3.Scale(m_Parent.lossyScale, m_LocalScale); } }
        public Vector3 up { get { return rotation * Vector3.up; } }
        public Vector3 right { get { return rotation * Vector3.right; } }
        public Vector3 forward { get { return rotation * Vector3.forward; } }

        public Vector3 TransformPoint(Vector3 p) { return position + rotation * Vector3.Scale(lossyScale, p); }
        public Vector3 InverseTransformPoint(Vector3 p)
        {
            Vector3 local = Quaternion.Inverse(rotation) * (p - position);
            Vector3 s = lossyScale;
            return new Vector3(local.x / s.x, local.y / s.y, local.z / s.z);
        }
        public Vector3 TransformDirection(Vector3 d) { return rotation * d; }
        public Vector3 InverseTransformDirection(Vector3 d) { return Quaternion.Inverse(rotation) * d; }
        public void LookAt(Vector3 worldPosition) { LookAt(worldPosition, Vector3.up); }
        public void LookAt(Vector3 worldPosition, Vector3 worldUp)
        {
            Vector3 d = worldPosition - position;
            if (d.sqrMagnitude > 0f) rotation = Quaternion.LookRotation(d, worldUp);
        }
        public void Rotate(Vector3 eulers) { rotation = rotation * Quaternion.Euler(eulers); }
    }
}
