import type { StartRunRequest, VmAvailability } from '../shared/ipc'
import type { RunSpec } from '../sim/scenario'
import { isRealError } from '../real/errors'
import { isVmError } from '../vm/errors'
import { cachedKernels, KERNEL_SERIES, seriesOf, userImage, vmCacheDir } from '../vm/images'
import { chooseAccel } from '../vm/qemu'
import { checkVmVariants, prepareVm, runVmOne, vmUnavailableReason, type VmProgress, type VmSetup } from '../vm/runner'
import { qemuTopology } from '../vm/topology'
import { MeasuredRuns, type MeasuredDeps } from './measured-runs'

/**
 * The workbench's VM runs (src/vm, as `schedlab vm`), saved in the run store like simulated
 * runs: one guest at a time, each variant x seed its own boot, with the guest's phases
 * (fetching the kernel, booting, running, shipping the trace) as progress. Under TCG with icount
 * the results do not depend on the host's load, so simulations may run beside them.
 */

export interface VmServiceDeps extends MeasuredDeps {
  dataDir: string
}

const PHASES: Record<VmProgress['phase'], string> = {
  fetch: 'fetching the kernel',
  image: 'building the guest image',
  boot: 'booting',
  run: 'running the workloads',
  ship: 'shipping the trace',
  analyze: 'analyzing the trace',
  done: 'done'
}

const isUserKernel = (k: string | undefined): boolean => k !== undefined && seriesOf(k) === null

/** The kernel, guest image and accelerator of each started run (prepared by its first job). */
const setups = new WeakMap<StartRunRequest, Promise<VmSetup>>()

export class VmService extends MeasuredRuns {
  constructor(private readonly vmDeps: VmServiceDeps) {
    super(vmDeps, {
      source: 'vm',
      label: (req) => `(vm ${req.kernel ?? 'kernel of the profile'})`,
      unavailable: async () => vmUnavailableReason(),
      preflight: async (specs: RunSpec[], req: StartRunRequest) => {
        checkVmVariants(specs, isUserKernel(req.kernel))
        qemuTopology(specs[0].scenario.topology)
        if (isUserKernel(req.kernel)) userImage(req.kernel!)
      },
      runOne: async (spec, req, job) => {
        const progress = (p: VmProgress): void => {
          if (p.phase === 'run') job.measuring()
          job.phase(p.message ?? PHASES[p.phase], p.fraction)
        }
        let setup = setups.get(req)
        if (!setup) {
          setup = prepareVm(spec.scenario, { kernel: req.kernel, dataDir: vmDeps.dataDir, signal: job.signal, progress })
          setups.set(req, setup)
        }
        return runVmOne(spec, await setup, { kernel: req.kernel, dataDir: vmDeps.dataDir, signal: job.signal, timelines: true, progress })
      },
      refusal: (e) => isVmError(e, 'VmRefusal') || isRealError(e, 'RealRefusal'),
      cancelled: (e) => isVmError(e, 'VmCancelled')
    })
  }

  /** Whether VM runs are possible here, and the kernels to pick from (cached ones marked). */
  async available(): Promise<VmAvailability> {
    const why = vmUnavailableReason()
    const cached = cachedKernels(vmCacheDir(this.vmDeps.dataDir))
    const kernels = KERNEL_SERIES.map((s) => {
      const have = cached.find((k) => k.series === s.series)
      return { kernel: s.series, label: have ? `${s.series} (${have.version})` : `${s.series} (Debian ${s.suite}, fetched on first use)`, cached: !!have }
    })
    if (why) return { available: false, reason: why, kernels }
    let accel: string | undefined
    try {
      const a = chooseAccel()
      accel = `${a.accel}: ${a.reason}`
    } catch (e) {
      return { available: false, reason: (e as Error).message, kernels }
    }
    return { available: true, kernels, accel }
  }
}
