/**
 * How a planning stage reports a problem: at a path into the spec's data, located in the file by
 * planCampaign (plan/index.ts). Its own file, since every stage (prepare, chains, expand) takes one.
 */
import type { DataPath } from './source.ts';

export type Report = (path: DataPath, message: string, at?: { key?: string; text?: string }) => void;
