/** Types of scripts/check-structure.js (its docstrings say what each check measures). */
export declare const MAX_FILE_LINES: number;
export declare const MAX_FUNCTION_LINES: number;
export interface LongFile {
  file: string;
  lines: number;
}
export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}
/** An import between two rooms (top-level folders or files), with the file imports behind it. */
export interface RoomArrow {
  from: string;
  to: string;
  files: string[];
}
export interface StructureReport {
  longFiles: LongFile[];
  longFunctions: LongFunction[];
  fileCycles: string[][];
  upwardImports: RoomArrow[];
  /** Each room (top-level folder `x/` or file) and the rooms it imports, sorted. */
  rooms: Record<string, string[]>;
}
export declare function checkStructure(dir: string): StructureReport;
export declare function describeReport(report: StructureReport): string[];
