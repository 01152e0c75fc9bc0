import {
  addSchedule,
  listSchedules,
  removeSchedule,
  scheduleRuns,
  toggleSchedule,
  updateSchedule,
  startRunNow,
  schedulerSettings,
} from '../../core/scheduler/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { readJson } from '../read-body.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  RunNowStarted,
  RunsQuery,
  Schedule,
  ScheduleAddBody,
  ScheduleDeleted,
  ScheduleIdParams,
  ScheduleList,
  ScheduleRuns,
  ScheduleToggleBody,
  ScheduleUpdateBody,
} from '../schemas/scheduler.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const BODY_LIMIT = 16 * 1024;
const TAGS = ['scheduler'];
const BAD_BODY = 'bad body (`USAGE`, naming the field) or not JSON (`API-003`)';
const NO_SCHEDULE = json(ErrorBody, 'no schedule of that id (`SCHEDULE_NOT_FOUND`)');

/**
 * The scheduler routes of docs/http-api.md#scheduler-routes, at the server root as the spec lists them, plus Run Now and
 * the run history. Administrator only (permission `scheduler.manage`); JSON bodies.
 */
export function schedulerRoutes(api: ApiBuilder, { store, config }: RouteDeps): void {
  const settings = () => schedulerSettings(store.home, { env: config.env });

  api.route({
    method: 'get',
    path: '/scheduler/schedules',
    summary: 'The schedules, plus the dictionaries with a target that are not scheduled yet',
    tags: TAGS,
    permission: 'scheduler.manage',
    responses: { 200: json(ScheduleList, 'schedules, ordered by dictionary name') },
    handler: async (c) => c.json(await listSchedules(store, settings())),
  });

  api.route({
    method: 'post',
    path: '/scheduler/add',
    summary: 'Add the schedule of a dictionary (one per dictionary)',
    description:
      'Disabled and `0 2 * * *` unless told otherwise. `next_run` is computed when enabled. The dictionary must have a breakout target.',
    tags: TAGS,
    permission: 'scheduler.manage',
    audit: { action: 'schedules.add' },
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: ScheduleAddBody } } } },
    responses: {
      201: json(Schedule, 'the new schedule'),
      400: json(ErrorBody, `bad cron expression (\`CRON_INVALID\`, the message names the field), ${BAD_BODY}`),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      409: json(ErrorBody, 'the dictionary already has a schedule (`SCHEDULE_EXISTS`) or has no breakout target (`TARGET_NOT_CONFIGURED`)'),
    },
    handler: async (c) => {
      const body = await readJson(c, ScheduleAddBody);
      return c.json(await addSchedule(store, body, settings()), 201);
    },
  });

  api.route({
    method: 'put',
    path: '/scheduler/update',
    summary: 'Change the cron expression and/or the enabled state of a schedule',
    description: 'Fields left out keep their value. `next_run` is recomputed from now when enabled, cleared when disabled.',
    tags: TAGS,
    permission: 'scheduler.manage',
    audit: { action: 'schedules.update' },
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: ScheduleUpdateBody } } } },
    responses: {
      200: json(Schedule, 'the schedule as changed'),
      400: json(ErrorBody, `bad cron expression (\`CRON_INVALID\`), ${BAD_BODY}`),
      404: NO_SCHEDULE,
    },
    handler: async (c) => {
      const { id, ...change } = await readJson(c, ScheduleUpdateBody);
      return c.json(await updateSchedule(store, { id }, change, settings()));
    },
  });

  api.route({
    method: 'put',
    path: '/scheduler/toggle',
    summary: 'Switch a schedule on or off',
    tags: TAGS,
    permission: 'scheduler.manage',
    audit: { action: 'schedules.toggle' },
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: ScheduleToggleBody } } } },
    responses: { 200: json(Schedule, 'the schedule as switched'), 400: json(ErrorBody, BAD_BODY), 404: NO_SCHEDULE },
    handler: async (c) => {
      const { id } = await readJson(c, ScheduleToggleBody);
      return c.json(await toggleSchedule(store, { id }, settings()));
    },
  });

  api.route({
    method: 'delete',
    path: '/scheduler/{id}',
    summary: 'Delete a schedule and its run history',
    description: "The run log files stay (in the store's file store; `sds logs show <file>` prints one).",
    tags: TAGS,
    permission: 'scheduler.manage',
    audit: { action: 'schedules.remove', target: 'schedule:{id}' },
    request: { params: ScheduleIdParams },
    responses: { 200: json(ScheduleDeleted, 'deleted'), 400: json(ErrorBody, 'id is not a whole number (`USAGE`)'), 404: NO_SCHEDULE },
    handler: async (c) => {
      const { id } = validate(ScheduleIdParams, c.req.param(), 'path');
      return c.json(await removeSchedule(store, { id: Number(id) }));
    },
  });

  api.route({
    method: 'post',
    path: '/scheduler/{id}/run-now',
    summary: "Run Now: start the schedule's incremental breakout at once, in the background",
    description:
      'Answers at once; the run goes on in a detached `sds schedule run-now` process, with a log file and a history entry ' +
      '(trigger `run-now`) as a scheduled run has. Works on a disabled schedule; `next_run` is not changed. Follow it with `GET /scheduler/{id}/runs`.',
    tags: TAGS,
    permission: 'scheduler.manage',
    request: { params: ScheduleIdParams },
    responses: {
      202: json(RunNowStarted, 'started'),
      400: json(ErrorBody, 'id is not a whole number (`USAGE`)'),
      404: NO_SCHEDULE,
      409: json(ErrorBody, 'a breakout of the dictionary is already running (`BREAKOUT_BUSY`)'),
    },
    handler: async (c) => {
      const { id } = validate(ScheduleIdParams, c.req.param(), 'path');
      return c.json(await startRunNow(store, { id: Number(id) }), 202);
    },
  });

  api.route({
    method: 'get',
    path: '/scheduler/{id}/runs',
    summary: 'The run history of a schedule, newest first',
    tags: TAGS,
    permission: 'scheduler.manage',
    request: { params: ScheduleIdParams, query: RunsQuery },
    responses: { 200: json(ScheduleRuns, 'runs'), 400: json(ErrorBody, 'limit not 1 to 1000 (`USAGE`)'), 404: NO_SCHEDULE },
    handler: async (c) => {
      const { id } = validate(ScheduleIdParams, c.req.param(), 'path');
      const q = validate(RunsQuery, c.req.query(), 'query');
      return c.json(await scheduleRuns(store, { id: Number(id) }, { limit: q.limit }));
    },
  });
}
