ALTER TABLE "path_plans" ALTER COLUMN "model" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "path_plans" ADD COLUMN "model_z" text;--> statement-breakpoint
-- The stored form is already compressed: kept out of line as it is, not compressed again.
ALTER TABLE "path_plans" ALTER COLUMN "model_z" SET STORAGE EXTERNAL;