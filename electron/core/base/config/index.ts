export { defaultConfigDir } from './paths';
export {
  readJsonFile,
  writeJsonFileAtomic,
  writeTextFileAtomic,
  writeTextFileAtomicSync,
} from './json-file';
