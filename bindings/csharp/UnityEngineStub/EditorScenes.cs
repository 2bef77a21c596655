// Stand-in for the editor's scene and asset services the package's editor scripts call
// (MenuItem, EditorSceneManager, AssetDatabase), following Unity's documented signatures;
// it records what was saved so that tests can check it.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;

namespace UnityEngine.SceneManagement
{
    public struct Scene
    {
        public string path;
        public string name;
        public bool IsValid() { return true; }
    }
}

namespace UnityEditor
{
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class MenuItem : Attribute
    {
        public readonly string menuItem;
        public MenuItem(string itemName) { menuItem = itemName; }
        public MenuItem(string itemName, bool isValidateFunction, int priority) { menuItem = itemName; }
    }

    public static class AssetDatabase
    {
        /// Stand-in only: the project's assets by path.
        public static readonly Dictionary<string, UnityEngine.Object> StandInAssets = new Dictionary<string, UnityEngine.Object>();
        public static readonly HashSet<string> StandInFolders = new HashSet<string> { "Assets" };

        /// Assets whose file name contains the filter's words (type filters "t:" are ignored).
        public static string[] FindAssets(string filter)
        {
            var found = new List<string>();
            foreach (string path in StandInAssets.Keys)
            {
                bool all = true;
                foreach (string word in filter.Split(' '))
                    if (word.Length > 0 && !word.StartsWith("t:") && path.IndexOf(word, StringComparison.OrdinalIgnoreCase) < 0) all = false;
                if (all) found.Add("guid:" + path);
            }
            return found.ToArray();
        }

        public static string GUIDToAssetPath(string guid) { return guid.StartsWith("guid:") ? guid.Substring(5) : ""; }

        public static T LoadAssetAtPath<T>(string assetPath) where T : UnityEngine.Object
        {
            UnityEngine.Object asset;
            return StandInAssets.TryGetValue(assetPath, out asset) ? asset as T : null;
        }

        public static bool IsValidFolder(string path) { return StandInFolders.Contains(path); }

        public static string CreateFolder(string parentFolder, string newFolderName)
        {
            if (!StandInFolders.Contains(parentFolder)) return "";
            StandInFolders.Add(parentFolder + "/" + newFolderName);
            return "guid:" + parentFolder + "/" + newFolderName;
        }
    }

    public static class Selection
    {
        public static UnityEngine.GameObject activeGameObject;
    }
}

namespace UnityEditor.SceneManagement
{
    public enum NewSceneSetup { EmptyScene = 0, DefaultGameObjects = 1 }
    public enum NewSceneMode { Single = 0, Additive = 1 }

    public static class EditorSceneManager
    {
        /// Stand-in only: every SaveScene's path, and the names of the objects then in the scene.
        public static readonly List<string> StandInSavedPaths = new List<string>();
        public static readonly List<string> StandInSavedObjects = new List<string>();
        /// Stand-in only: what SaveCurrentModifiedScenesIfUserWantsTo answers (the user's choice).
        public static bool StandInUserKeepsGoing = true;

        public static bool SaveCurrentModifiedScenesIfUserWantsTo() { return StandInUserKeepsGoing; }

        /// A new scene replaces the open one: its objects go; DefaultGameObjects adds a camera and a light.
        public static UnityEngine.SceneManagement.Scene NewScene(NewSceneSetup setup, NewSceneMode mode = NewSceneMode.Single)
        {
            foreach (UnityEngine.GameObject go in UnityEngine.StandInPlayerLoop.Objects.ToArray())
                if (go.transform.parent == null) UnityEngine.Object.DestroyImmediate(go);
            if (setup == NewSceneSetup.DefaultGameObjects)
            {
                new UnityEngine.GameObject("Main Camera");
                new UnityEngine.GameObject("Directional Light");
            }
            return new UnityEngine.SceneManagement.Scene { name = "Untitled" };
        }

        public static bool SaveScene(UnityEngine.SceneManagement.Scene scene, string dstScenePath = "", bool saveAsCopy = false)
        {
            if (!dstScenePath.StartsWith("Assets/") || !dstScenePath.EndsWith(".unity")) return false;
            StandInSavedPaths.Add(dstScenePath);
            StandInSavedObjects.Clear();
            foreach (UnityEngine.GameObject go in UnityEngine.StandInPlayerLoop.Objects) StandInSavedObjects.Add(go.name);
            return true;
        }
    }
}

namespace UnityEditor.Build
{
    public interface IOrderedCallback { int callbackOrder { get; } }

    /// Unity 2021.2 and later: the linker asks each implementation for an extra link.xml.
    public interface IUnityLinkerProcessor : IOrderedCallback
    {
        string GenerateAdditionalLinkXmlFile(Reporting.BuildReport report, UnityLinker.UnityLinkerBuildPipelineData data);
    }
}

namespace UnityEditor.Build.Reporting
{
    public sealed class BuildReport { }
}

namespace UnityEditor.UnityLinker
{
    public sealed class UnityLinkerBuildPipelineData
    {
        public string inputDirectory;
    }
}
