// Stand-in for HDRP's water scripting API (UnityEngine.Rendering.HighDefinition), written
// from its public documentation: HDRP 14 (Unity 2022.3: FindWaterSurfaceHeight, height)
// under STANDIN_HDRP_14, else HDRP 15-17 (Unity 2023 and 6: ProjectPointOnWaterSurface,
// the *WS fields) with the batched WaterSimulationSearchJob. The surface is an analytic
// sine swell the tests set, so that the adapter's answers can be checked against it.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Unity.Collections;
using Unity.Jobs;
using Unity.Mathematics;

namespace UnityEngine.Rendering.HighDefinition
{
    public class WaterSurface : MonoBehaviour
    {
        /// Real: "Script Interactions" on the surface (and the HDRP asset); queries fail without.
        public bool scriptInteractions = true;
        /// Stand-in only: level + amplitude sin(k x - omega t), current along currentDirection.
        public float StandInLevel, StandInAmplitude = 0.5f, StandInWavelength = 20f;
        public Vector3 StandInCurrentDirection = new Vector3(1f, 0f, 0f);
        public int StandInQueries;

        public float StandInHeight(float x)
        {
            float k = 2f * Mathf.PI / StandInWavelength, omega = Mathf.Sqrt(9.81f * k);
            return StandInLevel + StandInAmplitude * Mathf.Sin(k * x - omega * Time.timeSinceLevelLoad);
        }

#if STANDIN_HDRP_14
        public bool FindWaterSurfaceHeight(WaterSearchParameters wsp, out WaterSearchResult wsr)
        {
            wsr = new WaterSearchResult();
            if (!scriptInteractions) return false;
            StandInQueries++;
            wsr.height = StandInHeight(wsp.targetPosition.x);
            wsr.candidateLocation = wsp.targetPosition;
            return true;
        }
#else
        public bool ProjectPointOnWaterSurface(WaterSearchParameters wsp, out WaterSearchResult wsr)
        {
            wsr = new WaterSearchResult();
            if (!scriptInteractions) return false;
            StandInQueries++;
            float3 t = wsp.targetPositionWS;
            wsr.projectedPositionWS = new float3(t.x, StandInHeight(t.x), t.z);
            wsr.candidateLocationWS = t;
            wsr.currentDirectionWS = StandInCurrentDirection;
            return true;
        }

        public bool FillWaterSearchData(ref WaterSimSearchData wsd)
        {
            if (!scriptInteractions) return false;
            wsd.m_Surface = this;
            return true;
        }
#endif
    }

#if STANDIN_HDRP_14
    public struct WaterSearchParameters
    {
        public float3 startPosition, targetPosition;
        public float error;
        public int maxIterations;
    }

    public struct WaterSearchResult
    {
        public float height, error;
        public float3 candidateLocation;
        public int numIterations;
    }
#else
    public struct WaterSearchParameters
    {
        public float3 startPositionWS, targetPositionWS;
        public float error;
        public int maxIterations;
        public bool includeDeformation, excludeSimulation;
    }

    public struct WaterSearchResult
    {
        public float3 projectedPositionWS, candidateLocationWS, currentDirectionWS;
        public float error;
        public int numIterations;
    }

    public struct WaterSimSearchData
    {
        internal WaterSurface m_Surface;
    }

    public struct WaterSimulationSearchJob : IJobParallelFor
    {
        public WaterSimSearchData simSearchData;
        public NativeArray<float3> startPositionWSBuffer, targetPositionWSBuffer;
        public float error;
        public int maxIterations;
        public bool includeDeformation, excludeSimulation;
        public NativeArray<float> errorBuffer;
        public NativeArray<float3> candidateLocationWSBuffer, projectedPositionWSBuffer, directionBuffer;
        public NativeArray<int> stepCountBuffer;

        public void Execute(int index)
        {
            WaterSurface s = simSearchData.m_Surface;
            if (s == null) throw new InvalidOperationException("simSearchData was not filled (FillWaterSearchData)");
            float3 t = targetPositionWSBuffer[index];
            projectedPositionWSBuffer[index] = new float3(t.x, s.StandInHeight(t.x), t.z);
            candidateLocationWSBuffer[index] = t;
            directionBuffer[index] = s.StandInCurrentDirection;
            errorBuffer[index] = 0f;
            stepCountBuffer[index] = 1;
            s.StandInQueries++;
        }
    }
#endif
}
