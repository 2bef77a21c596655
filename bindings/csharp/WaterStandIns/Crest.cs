// Stand-ins for Crest 4 (namespace Crest, an Asset Store asset that defines CREST_OCEAN)
// and Crest 5 (WaveHarmonic.Crest, the com.waveharmonic.crest package), written from their
// public sources' declarations: the batched height/normal/velocity query and the flow
// query. As in Crest, a query answers as many points as its points array holds, so output
// arrays must be at least that long. The surface is an analytic sine swell and the flow a
// uniform vector the tests set.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using UnityEngine;

namespace Crest
{
    public interface ICollProvider
    {
        int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, float[] o_resultHeights, Vector3[] o_resultNorms, Vector3[] o_resultVels);
        int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, Vector3[] o_resultDisps, Vector3[] o_resultNorms, Vector3[] o_resultVels);
        bool RetrieveSucceeded(int queryStatus);
        void UpdateQueries();
        void CleanUp();
    }

    public interface IFlowProvider
    {
        int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, Vector3[] o_resultFlows);
        bool RetrieveSucceeded(int queryStatus);
        void UpdateQueries();
        void CleanUp();
    }

    public class OceanRenderer : MonoBehaviour
    {
        public static OceanRenderer Instance { get; private set; }
        public float SeaLevel { get { return transform.position.y; } }
        public ICollProvider CollisionProvider { get { return StandInProvider; } }
        public IFlowProvider FlowProvider { get { return StandInProvider; } }
        /// Stand-in only: the swell and flow the providers answer.
        public readonly StandInCrest4Provider StandInProvider = new StandInCrest4Provider();
        private void OnEnable() { Instance = this; StandInProvider.Ocean = this; }
        private void OnDisable() { if (Instance == this) Instance = null; }
    }

    public sealed class StandInCrest4Provider : ICollProvider, IFlowProvider
    {
        public OceanRenderer Ocean;
        public float Amplitude = 0.4f, Wavelength = 16f;
        public Vector3 Flow;
        /// Frames of "no data yet" Crest gives before its first readback.
        public int FailuresLeft;
        public int Queries;

        public float Height(float x)
        {
            float k = 2f * Mathf.PI / Wavelength, omega = Mathf.Sqrt(9.81f * k);
            return Ocean.SeaLevel + Amplitude * Mathf.Sin(k * x - omega * Time.timeSinceLevelLoad);
        }

        public Vector3 Normal(float x)
        {
            float k = 2f * Mathf.PI / Wavelength, omega = Mathf.Sqrt(9.81f * k);
            return new Vector3(-Amplitude * k * Mathf.Cos(k * x - omega * Time.timeSinceLevelLoad), 1f, 0f).normalized;
        }

        public int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, float[] o_resultHeights, Vector3[] o_resultNorms, Vector3[] o_resultVels)
        {
            Queries++;
            if (FailuresLeft > 0) { FailuresLeft--; return 1; }
            for (int i = 0; i < i_queryPoints.Length; i++)
            {
                if (o_resultHeights != null) o_resultHeights[i] = Height(i_queryPoints[i].x);
                if (o_resultNorms != null) o_resultNorms[i] = Normal(i_queryPoints[i].x);
                if (o_resultVels != null) o_resultVels[i] = Vector3.zero;
            }
            return 0;
        }

        public int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, Vector3[] o_resultDisps, Vector3[] o_resultNorms, Vector3[] o_resultVels)
        {
            throw new NotSupportedException("stand-in: the displacement query is not used by Keel");
        }

        public int Query(int i_ownerHash, float i_minSpatialLength, Vector3[] i_queryPoints, Vector3[] o_resultFlows)
        {
            for (int i = 0; i < i_queryPoints.Length; i++) o_resultFlows[i] = Flow;
            return 0;
        }

        public bool RetrieveSucceeded(int queryStatus) { return queryStatus == 0; }
        public void UpdateQueries() { }
        public void CleanUp() { }
    }
}

namespace WaveHarmonic.Crest
{
    public enum CollisionLayer { Everything, AfterAnimatedWaves, AfterDynamicWaves }

    public interface IQueryProvider
    {
        bool RetrieveSucceeded(int status);
    }

    public interface ICollisionProvider : IQueryProvider
    {
        int Query(int hash, float minimumLength, Vector3[] points, float[] heights, Vector3[] normals, Vector3[] velocities, CollisionLayer layer = CollisionLayer.Everything);
        int Query(int hash, float minimumLength, Vector3[] points, Vector3[] displacements, Vector3[] normals, Vector3[] velocities, CollisionLayer layer = CollisionLayer.Everything);
    }

    public interface IFlowProvider : IQueryProvider
    {
        int Query(int hash, float minimumLength, Vector3[] points, Vector3[] flows);
    }

    public sealed class AnimatedWavesLod { public ICollisionProvider Provider { get; internal set; } }
    public sealed class FlowLod { public IFlowProvider Provider { get; internal set; } }

    public class WaterRenderer : MonoBehaviour
    {
        public static WaterRenderer Instance { get; private set; }
        public float SeaLevel { get { return transform.position.y; } }
        public AnimatedWavesLod AnimatedWavesLod { get; private set; }
        public FlowLod FlowLod { get; private set; }
        public readonly StandInCrest5Provider StandInProvider = new StandInCrest5Provider();

        private void OnEnable()
        {
            Instance = this;
            StandInProvider.Water = this;
            AnimatedWavesLod = new AnimatedWavesLod { Provider = StandInProvider };
            FlowLod = new FlowLod { Provider = StandInProvider };
        }

        private void OnDisable() { if (Instance == this) Instance = null; }
    }

    public sealed class StandInCrest5Provider : ICollisionProvider, IFlowProvider
    {
        public WaterRenderer Water;
        public float Amplitude = 0.4f, Wavelength = 16f;
        public Vector3 Flow;
        public int Queries;

        private float Phase(float x)
        {
            float k = 2f * Mathf.PI / Wavelength;
            return k * x - Mathf.Sqrt(9.81f * k) * Time.timeSinceLevelLoad;
        }

        public float Height(float x) { return Water.SeaLevel + Amplitude * Mathf.Sin(Phase(x)); }

        public int Query(int hash, float minimumLength, Vector3[] points, float[] heights, Vector3[] normals, Vector3[] velocities, CollisionLayer layer = CollisionLayer.Everything)
        {
            Queries++;
            float k = 2f * Mathf.PI / Wavelength;
            for (int i = 0; i < points.Length; i++)
            {
                if (heights != null) heights[i] = Height(points[i].x);
                if (normals != null) normals[i] = new Vector3(-Amplitude * k * Mathf.Cos(Phase(points[i].x)), 1f, 0f).normalized;
                if (velocities != null) velocities[i] = Vector3.zero;
            }
            return 0;
        }

        public int Query(int hash, float minimumLength, Vector3[] points, Vector3[] displacements, Vector3[] normals, Vector3[] velocities, CollisionLayer layer = CollisionLayer.Everything)
        {
            throw new NotSupportedException("stand-in: the displacement query is not used by Keel");
        }

        public int Query(int hash, float minimumLength, Vector3[] points, Vector3[] flows)
        {
            for (int i = 0; i < points.Length; i++) flows[i] = Flow;
            return 0;
        }

        public bool RetrieveSucceeded(int status) { return status == 0; }
    }
}
