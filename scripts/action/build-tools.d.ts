/** Types of scripts/action/build-tools.js (its docstrings say what it writes). */
interface LockEntry {
  version?: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}
export declare const NOT_FOR_THE_BUILD: RegExp[];
export declare function buildToolsProject(lock: { packages: Record<string, LockEntry> }): {
  manifest: { name: string; private: true; dependencies: Record<string, string> };
  lockfile: { name: string; lockfileVersion: 3; packages: Record<string, LockEntry> };
};
