// Tools > Keel > Create Thesis Sample Scene: builds the sample's scene (the thesis's
// Perlin sea, shown by a GenerateWave plane, and the ThesisScenes component with the
// Stanford bunny already assigned) and saves it in the project, so that the sample is one
// menu click and Play away, with nothing to assign by hand.
// SPDX-License-Identifier: MIT OR Apache-2.0
using UnityEditor;
using UnityEditor.SceneManagement;
using UnityEngine;

namespace Keel.Samples.Editor
{
    public static class ThesisSceneMenu
    {
        /// <summary>Where the menu saves the scene.</summary>
        public const string ScenePath = "Assets/Keel Samples/Thesis Scene.unity";

        [MenuItem("Tools/Keel/Create Thesis Sample Scene")]
        private static void CreateFromMenu()
        {
            // The user's open scene is theirs: ask before replacing it (Cancel stops here).
            if (!EditorSceneManager.SaveCurrentModifiedScenesIfUserWantsTo()) return;
            string problem = Create(ScenePath);
            if (problem != null) Debug.LogError("Keel: " + problem);
            else Debug.Log("Keel: saved the thesis sample scene as " + ScenePath + "; press Play.");
        }

        /// <summary>Builds the sample scene and saves it at path; returns null, or what went wrong.</summary>
        public static string Create(string path)
        {
            TextAsset bunny = FindBunny();
            if (bunny == null) return "bunny.obj.txt was not found: import the Thesis Scenes sample (Package Manager > Keel Buoyancy > Samples).";
            int slash = path.LastIndexOf('/');
            string folder = path.Substring(0, slash);
            if (!EnsureFolder(folder)) return "cannot create the folder " + folder + ".";

            UnityEngine.SceneManagement.Scene built = EditorSceneManager.NewScene(NewSceneSetup.DefaultGameObjects, NewSceneMode.Single);
            var water = new GameObject("Water").AddComponent<WaveController>();
            water.waterModel = KeelWaterModel.Perlin;
            // Unity's plane is 10 m by 10 m; four times that shows the sea around the bodies.
            GameObject sea = GameObject.CreatePrimitive(PrimitiveType.Plane);
            sea.name = "Sea (GenerateWave)";
            sea.transform.localScale = new Vector3(4f, 1f, 4f);
            sea.AddComponent<GenerateWave>().waveController = water;
            var scenes = new GameObject("Thesis Scenes").AddComponent<ThesisScenes>();
            scenes.scene = ThesisScene.Bunny;
            scenes.bunnyObj = bunny;
            GameObject camera = GameObject.Find("Main Camera");
            if (camera != null)
            {
                camera.transform.position = new Vector3(0f, 3f, -7f);
                camera.transform.rotation = Quaternion.LookRotation(new Vector3(0f, -3f, 7f), Vector3.up);
            }
            Selection.activeGameObject = scenes.gameObject;
            return EditorSceneManager.SaveScene(built, path) ? null : "saving " + path + " failed.";
        }

        private static TextAsset FindBunny()
        {
            foreach (string guid in AssetDatabase.FindAssets("bunny.obj t:TextAsset"))
            {
                string assetPath = AssetDatabase.GUIDToAssetPath(guid);
                if (assetPath.EndsWith("/bunny.obj.txt")) return AssetDatabase.LoadAssetAtPath<TextAsset>(assetPath);
            }
            return null;
        }

        private static bool EnsureFolder(string folder)
        {
            if (AssetDatabase.IsValidFolder(folder)) return true;
            int slash = folder.LastIndexOf('/');
            if (slash < 0) return false;
            string parent = folder.Substring(0, slash);
            return EnsureFolder(parent) && !string.IsNullOrEmpty(AssetDatabase.CreateFolder(parent, folder.Substring(slash + 1)));
        }
    }
}
