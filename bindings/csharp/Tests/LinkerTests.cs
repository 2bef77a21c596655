// The link.xml the package hands to Unity's linker (Unity ignores one inside a package):
// well-formed, keeping Keel.Runtime whole, and naming only assemblies the package defines.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.IO;
using System.Text.RegularExpressions;
using System.Xml;
using Keel.Editor;
using NUnit.Framework;
using UnityEditor.Build;

namespace Keel.Tests
{
    [TestFixture]
    public class LinkerTests
    {
        [Test]
        public void LinkXmlKeepsThePackagesAssembliesAndNamesNoOther()
        {
            Type type = typeof(PhysicsBuoyancyEditor).Assembly.GetType("Keel.Editor.KeelLinkerProcessor", true);
            var processor = (IUnityLinkerProcessor)Activator.CreateInstance(type, true);
            string path = processor.GenerateAdditionalLinkXmlFile(null, null);
            Assert.IsTrue(Path.IsPathRooted(path) && File.Exists(path), path);

            var asmdefs = new HashSet<string>();
            string package = Environment.GetEnvironmentVariable("KEEL_UNITY_PACKAGE");
            Assert.IsNotNull(package, "KEEL_UNITY_PACKAGE (the unity-package folder) is not set");
            foreach (string file in Directory.GetFiles(package, "*.asmdef", SearchOption.AllDirectories))
                asmdefs.Add(Regex.Match(File.ReadAllText(file), "\"name\"\\s*:\\s*\"([^\"]+)\"").Groups[1].Value);

            var xml = new XmlDocument();
            xml.Load(path);
            var preserved = new List<string>();
            foreach (XmlElement assembly in xml.SelectNodes("/linker/assembly"))
            {
                string name = assembly.GetAttribute("fullname");
                Assert.AreEqual("all", assembly.GetAttribute("preserve"), name);
                CollectionAssert.Contains(asmdefs, name, "link.xml names an assembly the package does not define");
                // Only the runtime is always there; an optional adapter must be allowed to be missing.
                if (name != "Keel.Runtime") Assert.AreEqual("1", assembly.GetAttribute("ignoreIfMissing"), name);
                preserved.Add(name);
            }
            CollectionAssert.Contains(preserved, "Keel.Runtime");
            foreach (string name in asmdefs)
                if (name.StartsWith("Keel.Water.")) CollectionAssert.Contains(preserved, name, "an adapter is not kept");
        }
    }
}
