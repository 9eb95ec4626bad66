export { podsView, containersView, imagesView } from './views';
export { resourceCommands } from './commands';
import './resources.css';
