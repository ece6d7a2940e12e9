/** Types of scripts/action/outputs.js (its docstrings say what each function does). */
export declare function escapeData(text: string): string;
export declare function escapeProperty(text: string): string;
export declare function errorCommand(file: string, title: string, message: string): string;
export interface ActionOutputs {
  outputs: { downloaded: number; cached: number; failed: number };
  annotations: string[];
}
export declare function actionOutputs(
  doc: unknown,
  files: { lock: string; manifest: string },
): ActionOutputs;
