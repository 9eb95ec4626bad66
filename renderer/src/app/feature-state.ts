import type { Disposable, DisposableStore } from '../../../shared/lifecycle';
import type { AppModel } from './model';

/**
 * One feature's window-long state (open terminals, the session list, the port forwards…):
 * its name and how it is made. A feature declares its key once, next to its state, and
 * reads the state with `model.featureState(key)`, typed by the key: there is no string to
 * mistype and no cast, and two features can never share a slot.
 *
 * The key keeps each model's instance itself (weakly, so a model that goes away takes its
 * state with it); the model owns the instances and disposes them with itself.
 */
export class FeatureState<T extends Disposable> {
  private readonly instances = new WeakMap<AppModel, T>();

  constructor(
    /** For messages and debugging; unique per app (see `createAppModel`). */
    readonly name: string,
    private readonly create: (model: AppModel) => T,
  ) {}

  /**
   * `model`'s instance, created on first use and handed to `owner` (the model's store of
   * feature state). For `AppModel.featureState`; features call that.
   */
  instanceIn(model: AppModel, owner: DisposableStore): T {
    const existing = this.instances.get(model);
    if (existing !== undefined) return existing;
    const created = owner.add(this.create(model));
    this.instances.set(model, created);
    return created;
  }
}
