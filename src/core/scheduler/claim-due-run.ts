import type { Store } from '../../store/open-store.js';
import type { ScheduleRow } from '../../store/schedules-repo.js';
import { nextOccurrence } from '../../scheduler/cron.js';
import { claimDutySlot, type DutyTurn } from '../duties/index.js';
import type { SchedulerSettings } from './settings.js';

/** The shared duty of one schedule's due runs: its slots are the due times (next_run). */
const scheduleDuty = (scheduleId: number): string => `schedule:${scheduleId}`;

/**
 * Claims the due run of `schedule` at its next_run for this tick: one row per (schedule, due
 * time) in the store, inserted only when absent, so of every tick of every node that found the
 * schedule due exactly one runs it (docs/scheduler.md#a-tick-sds-scheduler-run). In the same
 * transaction the schedule is read again (a tick that read it before another moved it on finds
 * it moved, or disabled) and the winner moves next_run to the first occurrence after now: a node
 * that dies between the claim and the run loses that occurrence, as a missed run is not replayed,
 * and the schedule runs again at the next one.
 */
export async function claimDueRun(store: Store, schedule: ScheduleRow, settings: SchedulerSettings): Promise<DutyTurn> {
  const dueAt = schedule.nextRun;
  if (dueAt === null) return { mine: false, node: null };
  const now = settings.now();
  return store.transaction(async (tx): Promise<DutyTurn> => {
    const s = await tx.schedules.get(schedule.id);
    const duty = scheduleDuty(schedule.id);
    if (!s?.enabled || s.nextRun !== dueAt) {
      return { mine: false, node: (await tx.duties.claims(duty)).find((c) => c.slot === dueAt)?.node ?? null };
    }
    const turn = await claimDutySlot(tx, duty, dueAt, now);
    if (turn.mine)
      await tx.schedules.setNextRun(s.id, nextOccurrence(s.cronExpression, now, settings.zone).toISOString(), now.toISOString());
    return turn;
  });
}
