import { SIMULATED_ADS } from '@domain/games/scoring';
import { GraduationCap, PlayCircle } from 'lucide-react';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { openOnboarding } from '../onboarding';

export type StartAd = (app: string, durationSeconds: number) => void;

/** Spec Dashboard "Test Features": Start Tutorial and the three simulated ads. */
export function TestFeatures({ onStartAd }: { onStartAd: StartAd }) {
  return (
    <Card aria-labelledby="test-features-title">
      <h2 id="test-features-title" className="mb-3 text-lg font-bold">
        Test Features
      </h2>
      <div className="flex flex-col gap-2">
        <Button variant="outline" onClick={() => openOnboarding(0)}>
          <GraduationCap className="size-4" aria-hidden />
          Start Tutorial
        </Button>
        {SIMULATED_ADS.map((ad) => (
          <Button key={ad.app} variant="secondary" onClick={() => onStartAd(ad.app, ad.durationSeconds)}>
            <PlayCircle className="size-4" aria-hidden />
            {ad.app} ({ad.durationSeconds}s)
          </Button>
        ))}
      </div>
    </Card>
  );
}
