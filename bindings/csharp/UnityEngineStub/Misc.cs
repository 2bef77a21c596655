// Stand-in for UnityEngine's static services and attributes: Time, Application, Debug,
// Gizmos, GUI, the inspector attributes, RuntimeInitializeOnLoadMethod and AOT's
// MonoPInvokeCallback.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public static class Time
    {
        internal static float s_Time, s_FixedTime, s_LevelLoadTime, s_DeltaTime = 0.02f;
        internal static int s_FrameCount;
        private static float s_FixedDeltaTime = 0.02f;
        internal static bool s_InFixedStep;

        public static float time { get { return s_InFixedStep ? s_FixedTime : s_Time; } }
        public static float fixedTime { get { return s_FixedTime; } }
        public static float timeSinceLevelLoad { get { return time - s_LevelLoadTime; } }
        public static float deltaTime { get { return s_InFixedStep ? s_FixedDeltaTime : s_DeltaTime; } }
        public static float unscaledDeltaTime { get { return s_DeltaTime; } }
        public static float fixedDeltaTime { get { return s_FixedDeltaTime; } set { s_FixedDeltaTime = value; } }
        public static int frameCount { get { return s_FrameCount; } }
        public static float realtimeSinceStartup { get { return (float)System.Diagnostics.Stopwatch.GetTimestamp() / System.Diagnostics.Stopwatch.Frequency; } }
    }

    public enum RuntimePlatform { LinuxPlayer = 13, LinuxEditor = 16 }

    public static class Application
    {
        public static event Action quitting;
        /// Stand-in only: false shows the inspector as in edit mode.
        public static bool StandInIsPlaying = true;
        public static bool isPlaying { get { return StandInIsPlaying; } }
        public static bool isEditor { get { return false; } }
        public static RuntimePlatform platform { get { return RuntimePlatform.LinuxPlayer; } }
        internal static void RaiseQuitting() { Action q = quitting; if (q != null) q(); }
    }

    public static class Debug
    {
        /// Stand-in only: every error logged, for tests to count.
        public static readonly List<string> StandInErrors = new List<string>();
        public static readonly List<string> StandInWarnings = new List<string>();

        public static void Log(object message) { Console.WriteLine(message); }
        public static void Log(object message, Object context) { Log(message); }
        public static void LogWarning(object message) { StandInWarnings.Add(message.ToString()); Console.WriteLine("warning: " + message); }
        public static void LogWarning(object message, Object context) { LogWarning(message); }
        public static void LogError(object message) { StandInErrors.Add(message.ToString()); Console.WriteLine("error: " + message); }
        public static void LogError(object message, Object context) { LogError(message); }
        public static void LogException(Exception exception) { LogError(exception.ToString()); }
        public static void LogException(Exception exception, Object context) { LogException(exception); }
        public static void DrawLine(Vector3 start, Vector3 end, Color color) { }
        public static void DrawRay(Vector3 start, Vector3 dir, Color color) { }
    }

    public static class Gizmos
    {
        /// Stand-in only: how many primitives were drawn.
        public static int StandInDrawCount;
        public static Color color { get; set; }
        public static void DrawLine(Vector3 from, Vector3 to) { StandInDrawCount++; }
        public static void DrawRay(Vector3 from, Vector3 direction) { StandInDrawCount++; }
        public static void DrawSphere(Vector3 center, float radius) { StandInDrawCount++; }
        public static void DrawWireSphere(Vector3 center, float radius) { StandInDrawCount++; }
        public static void DrawWireCube(Vector3 center, Vector3 size) { StandInDrawCount++; }
    }

    public static class GUI
    {
        public static void Label(Rect position, string text) { }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public class TooltipAttribute : PropertyAttribute
    {
        public readonly string tooltip;
        public TooltipAttribute(string tooltip) { this.tooltip = tooltip; }
    }
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class RangeAttribute : PropertyAttribute
    {
        public readonly float min;
        public readonly float max;
        public RangeAttribute(float min, float max) { this.min = min; this.max = max; }
    }
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class MinAttribute : PropertyAttribute
    {
        public readonly float min;
        public MinAttribute(float min) { this.min = min; }
    }
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = true)]
    public class HeaderAttribute : PropertyAttribute
    {
        public readonly string header;
        public HeaderAttribute(string header) { this.header = header; }
    }
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = true)]
    public class SpaceAttribute : PropertyAttribute
    {
        public readonly float height;
        public SpaceAttribute() { height = 8f; }
        public SpaceAttribute(float height) { this.height = height; }
    }
    public abstract class PropertyAttribute : Attribute { }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class HideInInspector : Attribute { }
    [AttributeUsage(AttributeTargets.Class, AllowMultiple = true)]
    public sealed class RequireComponent : Attribute
    {
        public Type m_Type0, m_Type1, m_Type2;
        public RequireComponent(Type requiredComponent) { m_Type0 = requiredComponent; }
        public RequireComponent(Type requiredComponent, Type requiredComponent2) { m_Type0 = requiredComponent; m_Type1 = requiredComponent2; }
    }
    [AttributeUsage(AttributeTargets.Class, Inherited = false)]
    public sealed class DisallowMultipleComponent : Attribute { }
    public sealed class AddComponentMenu : Attribute
    {
        public AddComponentMenu(string menuName) { }
        public AddComponentMenu(string menuName, int order) { }
    }
    [AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
    public class HelpURLAttribute : Attribute { public HelpURLAttribute(string url) { } }
    [AttributeUsage(AttributeTargets.Class)]
    public class DefaultExecutionOrder : Attribute { public DefaultExecutionOrder(int order) { } }

    public enum RuntimeInitializeLoadType
    {
        AfterSceneLoad = 0,
        BeforeSceneLoad = 1,
        AfterAssembliesLoaded = 2,
        BeforeSplashScreen = 3,
        SubsystemRegistration = 4,
    }
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public class RuntimeInitializeOnLoadMethodAttribute : Attribute
    {
        public RuntimeInitializeOnLoadMethodAttribute() { loadType = RuntimeInitializeLoadType.AfterSceneLoad; }
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { this.loadType = loadType; }
        public RuntimeInitializeLoadType loadType { get; private set; }
    }
}

namespace AOT
{
    [AttributeUsage(AttributeTargets.Method)]
    public class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}

namespace UnityEditor
{
    public static class AssemblyReloadEvents
    {
        public delegate void AssemblyReloadCallback();
        public static event AssemblyReloadCallback beforeAssemblyReload;
        public static event AssemblyReloadCallback afterAssemblyReload;
        /// Stand-in only: what the editor does before it unloads the scripting domain.
        public static void StandInRaiseBeforeAssemblyReload()
        {
            AssemblyReloadCallback c = beforeAssemblyReload;
            if (c != null) c();
        }
        internal static void Unused() { if (afterAssemblyReload != null) afterAssemblyReload(); }
    }

    public enum PlayModeStateChange { EnteredEditMode, ExitingEditMode, EnteredPlayMode, ExitingPlayMode }

    public static class EditorApplication
    {
        public static event Action<PlayModeStateChange> playModeStateChanged;
        public static void StandInRaise(PlayModeStateChange change)
        {
            Action<PlayModeStateChange> c = playModeStateChanged;
            if (c != null) c(change);
        }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute { }
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class InitializeOnLoadMethodAttribute : Attribute { }
}

namespace UnityEditor
{
    public enum MessageType { None, Info, Warning, Error }

    [AttributeUsage(AttributeTargets.Class, Inherited = true)]
    public sealed class CustomEditor : Attribute { public CustomEditor(Type inspectedType) { } }
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CanEditMultipleObjects : Attribute { }

    public class Editor : UnityEngine.Object
    {
        public UnityEngine.Object target;
        public virtual void OnInspectorGUI() { }
        public virtual bool RequiresConstantRepaint() { return false; }
        public bool DrawDefaultInspector() { return true; }
    }

    /// What the inspector showed, for tests: "label: value" lines and "Type: message" boxes.
    public static class EditorGUILayout
    {
        public static readonly System.Collections.Generic.List<string> StandInLines = new System.Collections.Generic.List<string>();
        public static readonly System.Collections.Generic.List<string> StandInTooltips = new System.Collections.Generic.List<string>();
        public static void HelpBox(string message, MessageType type) { StandInLines.Add(type + ": " + message); }
        public static void LabelField(string label, string label2, params UnityEngine.GUILayoutOption[] options) { StandInLines.Add(label + ": " + label2); }
        public static void LabelField(UnityEngine.GUIContent label, UnityEngine.GUIContent label2, params UnityEngine.GUILayoutOption[] options)
        {
            StandInLines.Add(label.text + ": " + label2.text);
            StandInTooltips.Add(label.tooltip);
        }
        public static void Space() { }
    }
}

namespace UnityEngine
{
    public sealed class GUILayoutOption { }

    public class GUIContent
    {
        public string text, tooltip;
        public GUIContent(string text) { this.text = text; }
        public GUIContent(string text, string tooltip) { this.text = text; this.tooltip = tooltip; }
    }
}
